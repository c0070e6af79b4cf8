package guard

import (
	"path/filepath"
	"slices"
	"testing"
)

// An event log in hook-loop's own folder protects that folder; one anywhere
// else (the project root, a shared logs/ folder) protects only the log and the
// files the event log keeps beside it, so the rest of the project stays
// writable.
func TestLoopFilesProtectTheLogNotItsFolder(t *testing.T) {
	root := "/p"
	sep := string(filepath.Separator)
	for _, tc := range []struct {
		name, log     string
		blocked, fine []string
	}{
		{"default log", "/p/.hook-loop/events.jsonl",
			[]string{"/p/.hook-loop/events.jsonl", "/p/.hook-loop/other", "/p/.hook-loop"}, []string{"/p/main.go", "/p/events.jsonl"}},
		{"dedicated folder", "/state/hook-loop/events.jsonl",
			[]string{"/state/hook-loop/x", "/state/hook-loop/events.jsonl.idx"}, []string{"/state/other"}},
		{"log at the project root", "/p/events.jsonl",
			[]string{"/p/events.jsonl", "/p/events.jsonl.idx", "/p/events.jsonl.lock", "/p/events.jsonl.idx.tmp", "/p/.hook-loop/x"},
			[]string{"/p/main.go", "/p/src/a.go", "/p", "/p/events.jsonl.bak", "/p/notes.md"}},
		{"relative log at the root", "events.jsonl",
			[]string{"/p/events.jsonl", "/p/events.jsonl.lock"}, []string{"/p/README.md"}},
		{"shared logs folder", "/p/logs/loop.jsonl",
			[]string{"/p/logs/loop.jsonl", "/p/logs/loop.jsonl.idx"}, []string{"/p/logs/app.log", "/p/logs/x.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := LoopFiles(root, "/p/hook-loop.json", tc.log, nil)
			for _, p := range tc.blocked {
				if underAny(p, files) == "" {
					t.Errorf("%s is not protected (protected: %v)", p, files)
				}
			}
			for _, p := range tc.fine {
				if f := underAny(p, files); f != "" {
					t.Errorf("%s is protected by %s", p, f)
				}
			}
			if slices.Contains(files, root+sep) {
				t.Errorf("the whole project is protected: %v", files)
			}
		})
	}
}
