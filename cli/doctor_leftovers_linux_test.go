package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/adapters/setup"
)

func TestDoctorNamesAndRemovesHookServerLeftovers(t *testing.T) {
	state := t.TempDir()
	for _, f := range []string{"hookd/3f2a.sock", "hookd/3f2a.sock.lock", "pgkeeper/9c.sock"} {
		p := filepath.Join(state, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A stand-in for a server an earlier version left running: its first
	// argument is the server's hidden one.
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "__hookd"), []byte("sleep 60\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := exec.Command("/bin/sh", "__hookd")
	srv.Dir = work
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { srv.Wait(); close(exited) }()
	t.Cleanup(func() { srv.Process.Kill(); <-exited })

	text := func(fs []setup.Finding) string {
		var b strings.Builder
		for _, f := range fs {
			b.WriteString(string(f.Level) + " " + f.What + " | " + f.Fix + "\n")
		}
		return b.String()
	}
	got := text(leftoverFindings(state, false))
	for _, want := range []string{"warn " + filepath.Join(state, "hookd") + " holds 2 file(s)", "warn " + filepath.Join(state, "pgkeeper") + " holds 1 file(s)", "still running: pid", "--fix"} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor without --fix:\n%s\nwant %q", got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "hookd")); err != nil {
		t.Fatalf("doctor without --fix removed something: %v", err)
	}
	got = text(leftoverFindings(state, true))
	if !strings.Contains(got, "ok removed "+filepath.Join(state, "hookd")) || !strings.Contains(got, "ok stopped") {
		t.Errorf("doctor --fix:\n%s", got)
	}
	for _, d := range leftoverDirs {
		if _, err := os.Stat(filepath.Join(state, d)); err == nil {
			t.Errorf("%s still there after --fix", d)
		}
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the leftover server was not stopped")
	}
	if got := text(leftoverFindings(state, false)); got != "" {
		t.Errorf("after --fix, doctor still finds:\n%s", got)
	}
}
