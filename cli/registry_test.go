package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/testkit/toyharness"
	"github.com/urfave/cli/v2"
)

// toyWorld is a project with the default gallery loop, a home, and a registry
// with the throwaway harness appended: the one line a new harness adds.
type toyWorld struct {
	dir, home string
	hs        []setup.Harness
}

func newToyWorld(t *testing.T) *toyWorld {
	t.Helper()
	w := &toyWorld{dir: t.TempDir(), home: t.TempDir(), hs: append(registry.All(), toyharness.Harness)}
	loopFile, err := gallery.Get(gallery.Default)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.dir, "hook-loop.json"), loopFile, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *toyWorld) factory(stdin string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.Factory{
		IOStreams: &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut},
		Getwd:     func() (string, error) { return w.dir, nil },
		Getenv:    func(string) string { return "" },
		HomeDir:   func() (string, error) { return w.home, nil },
		Version:   "test",
	}, &out, &errOut
}

func (w *toyWorld) run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	f, out, errOut := w.factory(stdin)
	code = Run(f, w.hs, append([]string{"hook-loop"}, args...))
	return code, out.String(), errOut.String()
}

func TestNewHarnessInOneFolder(t *testing.T) {
	w := newToyWorld(t)

	t.Run("help lists its commands", func(t *testing.T) {
		_, out, _ := w.run(t, "", "--help")
		for _, want := range []string{"toy-hook", "toy ", "codex-hook", "doctor"} {
			if !strings.Contains(out, want) {
				t.Errorf("help lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("install and doctor", func(t *testing.T) {
		if code, _, stderr := w.run(t, "", "doctor", "--harness", "toy"); code != 0 || stderr != "" {
			t.Fatalf("doctor before install: exit %d, %s", code, stderr)
		}
		_, out, _ := w.run(t, "", "doctor", "--harness", "toy")
		if !strings.Contains(out, "warn toy: hook-loop is not installed for toy") {
			t.Errorf("doctor before install:\n%s", out)
		}
		if code, out, stderr := w.run(t, "", "toy", "install", "--write"); code != 0 {
			t.Fatalf("toy install: exit %d\n%s%s", code, out, stderr)
		}
		if _, err := os.Stat(filepath.Join(w.dir, toyharness.HooksFile)); err != nil {
			t.Fatal(err)
		}
		_, out, _ = w.run(t, "", "doctor", "--harness", "toy")
		if !strings.Contains(out, "ok   toy: .toy/hooks.json runs hook-loop") {
			t.Errorf("doctor after install:\n%s", out)
		}
	})

	t.Run("the engine protects its files", func(t *testing.T) {
		owned := hooks.OwnedPaths(registry.Hooks(w.hs), w.home, nil)
		for _, want := range []string{toyharness.HooksFile, filepath.Join(w.home, ".toy", "user.json"), filepath.FromSlash(".codex/")} {
			if !slices.Contains(owned, want) {
				t.Errorf("OwnedPaths lacks %s: %v", want, owned)
			}
		}
		for _, target := range []string{toyharness.HooksFile, filepath.Join(w.home, ".toy", "user.json")} {
			in := `{"session":"s","command":"echo x > ` + target + `"}`
			code, out, stderr := w.run(t, in, "toy-hook", "--event", "PreToolUse")
			if code != 2 || !strings.HasPrefix(out, "block:") {
				t.Errorf("write to %s: exit %d, %q %q; want a block", target, code, out, stderr)
			}
		}
		code, out, _ := w.run(t, `{"session":"s","command":"echo x > notes.txt"}`, "toy-hook", "--event", "PreToolUse")
		if code != 0 || !strings.HasPrefix(out, "allow:") {
			t.Errorf("write to notes.txt: exit %d, %q; want allow", code, out)
		}
	})
}

// TestTopLevelInstallReachesEveryHarness: `hook-loop install NAME` runs NAME's
// own install for any harness in the registry, one added later included.
func TestTopLevelInstallReachesEveryHarness(t *testing.T) {
	w := newToyWorld(t)
	if code, out, stderr := w.run(t, "", "install", "toy", "--write"); code != 0 {
		t.Fatalf("install toy: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, toyharness.HooksFile)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := w.run(t, "", "install", "toi")
	if code != 2 || !strings.Contains(stderr, `unknown harness "toi" (did you mean toy?)`) {
		t.Errorf("install toi: exit %d, %q", code, stderr)
	}
	code, _, stderr = w.run(t, "", "uninstall")
	if code != 2 || !strings.Contains(stderr, "name the harness: hook-loop uninstall codex|opencode|pi|claude|") || !strings.Contains(stderr, "|toy") {
		t.Errorf("uninstall without a harness: exit %d, %q", code, stderr)
	}
	code, _, stderr = w.run(t, "", "install", "--write", "claude")
	if code != 2 || !strings.Contains(stderr, "name the harness before the flags: hook-loop install codex|opencode|pi|claude|") || !strings.Contains(stderr, "|toy --write claude") {
		t.Errorf("install --write claude: exit %d, %q", code, stderr)
	}
	// The harness's own flag errors come through, named after its command.
	code, _, stderr = w.run(t, "", "install", "claude", "--scop", "user")
	if code != 2 || !strings.Contains(stderr, "did you mean --scope?) (see 'hook-loop claude install --help')") {
		t.Errorf("install claude --scop: exit %d, %q", code, stderr)
	}
}

// TestRunFSeesParsedFlags checks flag parsing through the runF seam: nothing runs.
func TestRunFSeesParsedFlags(t *testing.T) {
	w := newToyWorld(t)
	f, _, _ := w.factory("")
	var got *toyharness.InstallOptions
	cmd := toyharness.NewCmdInstall(f, func(o *toyharness.InstallOptions) error { got = o; return nil })
	app := NewApp(f, nil)
	app.Commands = []*cli.Command{cmd}
	if err := app.Run([]string{"hook-loop", "install", "--write", "--destination", "sub"}); err != nil {
		t.Fatal(err)
	}
	if got == nil || !got.Write || got.Destination != filepath.Join(w.dir, "sub") {
		t.Errorf("options = %+v", got)
	}

	var v *ValidateOptions
	app = NewApp(f, nil)
	app.Commands = []*cli.Command{NewCmdValidate(f, func(o *ValidateOptions) error { v = o; return nil })}
	if err := app.Run([]string{"hook-loop", "validate", "--json", "x.json"}); err != nil {
		t.Fatal(err)
	}
	if v == nil || !v.JSON || v.File != "x.json" {
		t.Errorf("validate options = %+v", v)
	}
}
