package shell

import (
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for src, want := range map[string]string{
		`'/bin dir/hook-loop' codex-hook --config "/p q/hook-loop.json"`: "/bin dir/hook-loop|codex-hook|--config|/p q/hook-loop.json",
		`a && b`:   "",
		`a | b`:    "",
		`echo 'x`:  "",
		`ls $HOME`: "ls|$HOME",
	} {
		if got := strings.Join(Words(src), "|"); got != want {
			t.Errorf("Words(%q) = %q, want %q", src, got, want)
		}
	}
}
