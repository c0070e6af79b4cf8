package scaffold

import "testing"

func TestLineDiff(t *testing.T) {
	got := LineDiff("f", []byte("a\nb\nc\n"), []byte("a\nx\nc\n"))
	want := "--- f\n+++ f\n a\n-b\n+x\n c\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := LineDiff("f", nil, []byte("n\n")); got != "--- /dev/null\n+++ f\n+n\n" {
		t.Errorf("create diff: %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/hook-loop": "/usr/bin/hook-loop",
		"/a b/hook-loop":     "'/a b/hook-loop'",
		"it's":               `'it'\''s'`,
		"":                   "''",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
