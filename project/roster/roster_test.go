package roster

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRegisterOnceAndPruneWhatIsGone(t *testing.T) {
	state := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	for _, root := range []string{a, b} {
		if err := os.MkdirAll(filepath.Join(root, ".hook-loop"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".hook-loop", "events.jsonl"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ea := Entry{Root: a, Config: filepath.Join(a, "hook-loop.json"), Log: filepath.Join(a, ".hook-loop", "events.jsonl")}
	eb := Entry{Root: b, Config: filepath.Join(b, "hook-loop.json"), Log: filepath.Join(b, ".hook-loop", "events.jsonl")}
	store := Entry{Root: b, Config: filepath.Join(b, "hook-loop.json"), Store: true}
	for _, e := range []Entry{ea, ea, eb, store} {
		if err := Register(state, e); err != nil {
			t.Fatal(err)
		}
	}
	// A registered entry is never rewritten: the hook only stats it.
	path := entryPath(state, ea)
	before, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte(`{"root":"`+a+`","log":"`+ea.Log+`","config":"kept"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Register(state, ea); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"root":"`+a+`","log":"`+ea.Log+`","config":"kept"}` || before == nil {
		t.Fatalf("a known entry was rewritten: %s", data)
	}
	got, warns, err := List(state)
	if err != nil || len(warns) > 0 || len(got) != 3 {
		t.Fatalf("List = %+v, %v, %v; want 3 entries", got, warns, err)
	}
	// b's log is deleted: its file entry goes, its store entry stays; a's
	// project is deleted: its entry goes.
	if err := os.Remove(eb.Log); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(a); err != nil {
		t.Fatal(err)
	}
	got, _, err = List(state)
	if err != nil || len(got) != 1 || !got[0].Store || got[0].Root != b {
		t.Fatalf("after removing a and b's log: %+v, %v", got, err)
	}
	left, _ := os.ReadDir(filepath.Join(state, Dir))
	if len(left) != 1 {
		t.Fatalf("pruned entries left on disk: %d files", len(left))
	}
	// A bad entry is named, kept, and does not hide the others.
	bad := filepath.Join(state, Dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"root": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, warns, _ = List(state)
	if len(got) != 1 || len(warns) != 1 {
		t.Fatalf("with a bad entry: %+v %v", got, warns)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Fatal("a bad entry was removed")
	}
}

func TestListWithoutRegistry(t *testing.T) {
	got, warns, err := List(t.TempDir())
	if got != nil || warns != nil || err != nil {
		t.Fatalf("List of an empty state dir = %v %v %v", got, warns, err)
	}
}
