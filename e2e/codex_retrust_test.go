package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/mockmodel/responses"
)

// hookLoopExit runs the built hook-loop in the project and returns its
// combined output and exit status.
func (p *codexProject) hookLoopExit(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(hookLoopBinary(t), args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "CODEX_HOME="+p.home)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("hook-loop %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

// TestCodexReinstallUntrustsOnlyWhenAsked: with the real Codex, a re-install
// without --trust that changes hook-loop's trusted hooks is refused (exit 1,
// nothing written); --no-trust writes them, and then doctor, asking Codex,
// exits 1 because Codex would skip them; --trust makes doctor pass again.
func TestCodexReinstallUntrustsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{}, nil)
	doctor := []string{"doctor", "--harness", "codex", "--codex-home", p.home, "--codex-bin", p.codex}
	if out, code := p.hookLoopExit(t, doctor...); code != 0 {
		t.Fatalf("doctor after install --trust: exit %d\n%s", code, out)
	}

	// Another hook-loop binary (a real one: only the entries' text changes).
	other := filepath.Join(t.TempDir(), "hook-loop")
	data, err := os.ReadFile(hookLoopBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	hooksPath := filepath.Join(p.dir, ".codex", "hooks.json")
	before, _ := os.ReadFile(hooksPath)
	install := []string{"codex", "install", "--write", "--codex-home", p.home, "--codex-bin", p.codex, "--binary", other}

	out, code := p.hookLoopExit(t, install...)
	if code != 1 || !strings.Contains(out, "Codex trusted") || !strings.Contains(out, "--no-trust") {
		t.Errorf("re-install without --trust: exit %d, want 1 saying why\n%s", code, out)
	}
	if after, _ := os.ReadFile(hooksPath); string(after) != string(before) {
		t.Errorf("the refused re-install changed %s", hooksPath)
	}

	if out, code := p.hookLoopExit(t, append(install, "--no-trust")...); code != 0 {
		t.Fatalf("re-install --no-trust: exit %d\n%s", code, out)
	}
	out, code = p.hookLoopExit(t, doctor...)
	if code != 1 || !strings.Contains(out, "Codex silently skips") {
		t.Errorf("doctor with untrusted hooks: exit %d, want 1 naming the skipped hooks\n%s", code, out)
	}

	if out, code := p.hookLoopExit(t, append(install, "--trust")...); code != 0 {
		t.Fatalf("re-install --trust: exit %d\n%s", code, out)
	}
	if out, code := p.hookLoopExit(t, doctor...); code != 0 {
		t.Errorf("doctor after re-trusting: exit %d\n%s", code, out)
	}
}
