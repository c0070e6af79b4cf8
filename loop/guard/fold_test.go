package guard

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

// TestCaseSpellingsWhereCaseFolds: where the filesystem ignores case
// (macOS's default), a loop file or a secret spelled in other cases is the
// same file, through a file tool or a command; where it does not (Linux), it
// is another file and stays allowed.
func TestCaseSpellingsWhereCaseFolds(t *testing.T) {
	p := secretsProject(t, false)
	keys := strings.TrimSuffix(p.SecretPaths[0], "/")
	writes := []string{"HOOK-LOOP.JSON", ".Hook-Loop/events.jsonl", ".HOOK-LOOP/new.jsonl", ".Claude/Settings.json"}
	cmds := []string{"echo > HOOK-LOOP.JSON", "mv .HOOK-LOOP old", "rm -r .Hook-Loop", "sed -i s/a/b/ .CLAUDE/settings.json",
		"cp -rT /tmp/x ~/.LOCAL", "cp /tmp/k ~/.local/state/hook-loop/Pins/p2.json"}
	reads := []string{filepath.Join(filepath.Dir(keys), "KEYS", "k1"), strings.ToUpper(keys)}
	for _, folds := range []bool{true, false} {
		p.folds = func(string) bool { return folds }
		for _, w := range writes {
			ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: p.Root, TargetPaths: []string{filepath.Join(p.Root, w)}}
			if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked != folds {
				t.Errorf("folds %v: Write %s: refused %v (%s)", folds, w, got.Blocked, got.Reason)
			}
		}
		for _, c := range cmds {
			if got := p.bash(c); got.Blocked != folds {
				t.Errorf("folds %v: %s: refused %v (%s)", folds, c, got.Blocked, got.Reason)
			}
		}
		for _, r := range reads {
			ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Read", Cwd: p.Root, ReadPaths: []string{r}}
			if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked != folds {
				t.Errorf("folds %v: Read %s: refused %v (%s)", folds, r, got.Blocked, got.Reason)
			}
		}
	}
	p.folds = func(string) bool { return true }
	for _, ok := range []string{"hook-loop.json.bak", "Main.go", ".hook-loop-notes"} {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: p.Root, TargetPaths: []string{filepath.Join(p.Root, ok)}}
		if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked {
			t.Errorf("Write %s refused: %s", ok, got.Reason)
		}
	}
}

// TestFoldsCaseProbe: on a filesystem that keeps case (Linux's), the probe
// says so, even when both spellings exist as folders of their own.
func TestFoldsCaseProbe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the probe's answer on this system depends on its disk")
	}
	base := t.TempDir()
	for _, d := range []string{"Proj/sub", "pROJ"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{filepath.Join(base, "Proj"), filepath.Join(base, "Proj", "sub", "missing"), filepath.Join(base, "pROJ", "x"), "/"} {
		if foldsCase(path) {
			t.Errorf("foldsCase(%s) = true on a filesystem that keeps case", path)
		}
	}
}
