package need

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records how a helper ended the test: Skip and Fatal end the calling
// goroutine, as the real ones do.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skip(args ...any) { f.skipped = fmt.Sprint(args...); runtime.Goexit() }

func (f *fakeTB) Fatal(args ...any) { f.failed = fmt.Sprint(args...); runtime.Goexit() }

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func run(t *testing.T, fn func(testing.TB) string) (got string, f *fakeTB) {
	f = &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = fn(f)
	}()
	<-done
	return got, f
}

func TestSkipfSkipsOutsideCIAndFailsInCI(t *testing.T) {
	for _, ci := range []string{"", "false"} {
		t.Setenv("CI", ci)
		_, f := run(t, func(tb testing.TB) string { Skipf(tb, "no %s", "thing"); return "" })
		if f.skipped != "no thing" || f.failed != "" {
			t.Errorf("CI=%q: skipped %q, failed %q; want a skip", ci, f.skipped, f.failed)
		}
	}
	for _, ci := range []string{"true", "1"} {
		t.Setenv("CI", ci)
		_, f := run(t, func(tb testing.TB) string { Skipf(tb, "no %s", "thing"); return "" })
		if f.skipped != "" || !strings.Contains(f.failed, "no thing") || !strings.Contains(f.failed, "CI=true") {
			t.Errorf("CI=%q: skipped %q, failed %q; want a failure naming what is missing", ci, f.skipped, f.failed)
		}
	}
}

// The harness tests of nested packages (adapters/codex/install) looked for
// ../.cache/harnesses beside their own package and so never ran.
func TestHarnessDirIsUnderTheRepositoryRoot(t *testing.T) {
	t.Setenv(HarnessDirEnv, "")
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot = %s", root)
	}
	wd, _ := os.Getwd()
	if wd == root {
		t.Fatalf("this test must run below the root to mean anything")
	}
	dir, err := HarnessDir("codex")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".cache", "harnesses", "codex"); dir != want {
		t.Errorf("HarnessDir = %s, want %s", dir, want)
	}
}

func TestHarnessFoundOrSkippedOrFailed(t *testing.T) {
	base := t.TempDir()
	t.Setenv(HarnessDirEnv, base)
	bin := filepath.Join(base, "pi", "node_modules", ".bin", "pi")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CI", "true")
	if got, f := run(t, func(tb testing.TB) string { return Harness(tb, "pi") }); got != bin || f.failed != "" || f.skipped != "" {
		t.Errorf("Harness(pi) = %q (failed %q, skipped %q), want %s", got, f.failed, f.skipped, bin)
	}
	_, f := run(t, func(tb testing.TB) string { return Harness(tb, "codex") })
	if !strings.Contains(f.failed, "scripts/install-harnesses.sh codex") {
		t.Errorf("a missing harness under CI: failed %q, skipped %q; want a failure saying how to install it", f.failed, f.skipped)
	}
	t.Setenv("CI", "")
	if _, f := run(t, func(tb testing.TB) string { return Harness(tb, "codex") }); f.skipped == "" || f.failed != "" {
		t.Errorf("a missing harness outside CI: failed %q, skipped %q; want a skip", f.failed, f.skipped)
	}
}
