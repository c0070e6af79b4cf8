package patch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPaths(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"no patch", "echo .git/config > x", nil},
		{"add", "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n", []string{"a.txt"}},
		{"combined",
			"*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: existing.txt\n@@\n-a\n+b\n*** Delete File: todelete.txt\n*** Update File: tomove.txt\n*** Move to: moved/renamed.txt\n@@\n-m\n+n\n*** End Patch\n",
			[]string{"created.txt", "existing.txt", "todelete.txt", "tomove.txt", "moved/renamed.txt"}},
		{"heredoc in bash", "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch\nEOF\n", []string{".git/hooks/pre-commit"}},
		{"tab-indented heredoc", "apply_patch <<-EOF\n\t*** Update File: src/a.go\n\t@@\nEOF", []string{"src/a.go"}},
		{"crlf and spaces", "*** Add File:  spaced name.txt \r\n+x\r\n", []string{"spaced name.txt"}},
		{"absolute", "*** Add File: /var/tmp/x.txt\n", []string{"/var/tmp/x.txt"}},
		{"duplicates once", "*** Update File: a\n*** Update File: a\n", []string{"a"}},
		{"marker without path", "*** Add File:\n*** Delete File:   \n", nil},
		// A '+' line of an added file that looks like a header is content.
		{"header text inside content line", "*** Add File: a\n+*** Add File: b\n", []string{"a"}},
		{"end of file marker", "*** Update File: a\n@@\n-x\n+y\n*** End of File\n", []string{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Paths(c.text); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Paths(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	// A path with ".." is given cleaned and as written: through a link,
	// the system's ".." is the folder above the link's target.
	got := Resolve("/repo/sub", []string{"a.txt", "../.git/config", "/abs/./x", "lnk/../settings.json"})
	want := []string{"/repo/sub/a.txt", "/repo/.git/config", "/repo/sub/../.git/config", "/abs/x",
		"/repo/sub/settings.json", "/repo/sub/lnk/../settings.json"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Resolve = %q, want %q", got, want)
	}
	if got := Resolve("", []string{"a/../b"}); !reflect.DeepEqual(got, []string{"b", "a/../b"}) {
		t.Fatalf("Resolve without cwd = %q", got)
	}
	if Resolve("/x", nil) != nil {
		t.Fatal("Resolve(nil) should be nil")
	}
}

// TestRealPayloads checks the parser against every patch Codex 0.169 really sent.
func TestRealPayloads(t *testing.T) {
	dir := sharedEvents(t)
	want := map[string][]string{
		"PreToolUse-apply_patch-combined.json":      {"created.txt", "existing.txt", "todelete.txt", "tomove.txt", "moved/renamed.txt"},
		"PreToolUse-apply_patch-add.json":           {"created.txt"},
		"PreToolUse-apply_patch-update.json":        {"existing.txt"},
		"PreToolUse-apply_patch-delete.json":        {"todelete.txt"},
		"PreToolUse-apply_patch-move.json":          {"tomove.txt", "moved/renamed.txt"},
		"PreToolUse-Bash-apply_patch-heredoc.json":  {"created.txt"},
		"PreToolUse-apply_patch-absolute-path.json": nil, // checked below: one absolute path
	}
	for name, paths := range want {
		cmd := commandOf(t, filepath.Join(dir, name))
		got := Paths(cmd)
		if name == "PreToolUse-apply_patch-absolute-path.json" {
			if len(got) != 1 || !filepath.IsAbs(got[0]) {
				t.Errorf("%s: got %q, want one absolute path", name, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, paths) {
			t.Errorf("%s: got %q, want %q", name, got, paths)
		}
	}
}

func sharedEvents(t testing.TB) string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "harness", "codex", "payloads", "events"))
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real Codex payloads not found at %s (../shared is absent): skipping", dir)
	}
	return dir
}

func commandOf(t testing.TB, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ToolInput struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v.ToolInput.Command
}

func FuzzPaths(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n")
	f.Add("apply_patch <<'EOF'\n*** Update File: b\n*** Move to: c\nEOF")
	f.Add("*** Delete File: \r\n")
	if dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "harness", "codex", "payloads", "events")); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*apply_patch*.json"))
		for _, p := range files {
			f.Add(commandOf(f, p))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := Paths(text)
		seen := map[string]bool{}
		for _, p := range got {
			if p == "" || p != strings.TrimSpace(p) || strings.ContainsAny(p, "\n") {
				t.Fatalf("bad path %q from %q", p, text)
			}
			if seen[p] {
				t.Fatalf("duplicate path %q", p)
			}
			seen[p] = true
			if !strings.Contains(text, p) {
				t.Fatalf("path %q not in input", p)
			}
			if utf8.ValidString(text) && !utf8.ValidString(p) {
				t.Fatalf("invalid utf8 path from valid input")
			}
		}
		for _, r := range Resolve("/cwd", got) {
			if !filepath.IsAbs(r) {
				t.Fatalf("Resolve gave relative %q", r)
			}
		}
	})
}
