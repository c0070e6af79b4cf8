package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTidyLeavesTheProjectAsFound: a settings file left as {} goes, with the
// folder it leaves empty; .gitignore loses only install's line, and keeps it
// while the state directory stays.
func TestTidyLeavesTheProjectAsFound(t *testing.T) {
	dest := t.TempDir()
	settings := filepath.Join(dest, ".claude", "settings.json")
	write(t, settings, `{"hooks":{}}`)
	write(t, filepath.Join(dest, ".gitignore"), "node_modules\n/.hook-loop/\n")
	changes, notes, err := Tidy(dest, []Change{{Path: settings, Before: []byte(`{"hooks":{}}`), After: []byte("{\n}\n")}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes = %q", notes)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".claude")); !os.IsNotExist(err) {
		t.Errorf(".claude is still there (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, ".gitignore")); string(b) != "node_modules\n" {
		t.Errorf(".gitignore = %q, want only the user's line", b)
	}

	// The state directory stays (no --purge): its .gitignore line stays too.
	write(t, filepath.Join(dest, ".hook-loop", "events.jsonl"), "")
	write(t, filepath.Join(dest, ".gitignore"), "/.hook-loop/\n")
	changes, notes, err = Tidy(dest, nil, true)
	if err != nil || len(changes) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "still holds the event log") {
		t.Errorf("with the state kept: changes %v, notes %q, err %v", changes, notes, err)
	}
	// A user-scope uninstall never touches the project's .gitignore.
	os.RemoveAll(filepath.Join(dest, ".hook-loop"))
	if changes, _, _ := Tidy(dest, nil, false); len(changes) != 0 {
		t.Errorf("user scope: changes %v", changes)
	}
}

// TestTidyKeepsAFolderWithOtherFiles: only folders left empty go.
func TestTidyKeepsAFolderWithOtherFiles(t *testing.T) {
	dest := t.TempDir()
	ext := filepath.Join(dest, ".pi", "extensions", "hook_loop.ts")
	write(t, ext, "x")
	write(t, filepath.Join(dest, ".pi", "settings.json"), "{}")
	changes, _, err := Tidy(dest, []Change{{Path: ext, Before: []byte("x")}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".pi", "extensions")); !os.IsNotExist(err) {
		t.Errorf(".pi/extensions is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".pi", "settings.json")); err != nil {
		t.Errorf(".pi/settings.json, not hook-loop's, is gone: %v", err)
	}
}

func TestPurgeTakesTheSchemaAndEveryStateDir(t *testing.T) {
	dest, user := t.TempDir(), t.TempDir()
	config := filepath.Join(dest, "hook-loop.json")
	write(t, config, "{}")
	write(t, filepath.Join(dest, "hook-loop.schema.json"), "{}")
	write(t, filepath.Join(dest, ".hook-loop", "events.jsonl"), "")
	getenv := func(k string) string {
		if k == "HOOK_LOOP_STATE_DIR" {
			return user
		}
		return ""
	}
	dirs := StateDirs(dest, filepath.Join(dest, ".hook-loop", "events.jsonl"), getenv)
	write(t, filepath.Join(dirs[len(dirs)-1], "events.jsonl"), "")
	_, notes := Purge(false, config, dirs...)
	if len(notes) != 1 || !strings.HasSuffix(notes[0], "(add --purge to remove them)") {
		t.Errorf("without purge: %q", notes)
	}
	changes, _ := Purge(true, config, dirs...)
	if err := Apply(changes); err != nil {
		t.Fatal(err)
	}
	for _, p := range append([]string{config, filepath.Join(dest, "hook-loop.schema.json")}, dirs...) {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after --purge (%v)", p, err)
		}
	}
	// A log's path (Purge's third argument before StateDirs) stands for its directory.
	log := filepath.Join(dest, ".hook-loop", "events.jsonl")
	write(t, log, "")
	if changes, _ := Purge(true, config, log); len(changes) != 1 || changes[0].Path != filepath.Dir(log) || !changes[0].Dir {
		t.Errorf("purge given the log's path: %+v", changes)
	}
	if _, notes := Purge(false, config); len(notes) != 1 || !strings.HasSuffix(notes[0], "(add --purge to remove it)") {
		t.Errorf("one file kept: %q", notes)
	}
}
