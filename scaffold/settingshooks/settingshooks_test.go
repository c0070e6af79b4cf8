package settingshooks

import (
	"strings"
	"testing"
)

func TestPathArgAndCommand(t *testing.T) {
	for _, tt := range []struct{ path, dirVar, want string }{
		{"/p/a b/loop.json", `"$CLAUDE_PROJECT_DIR"`, `"$CLAUDE_PROJECT_DIR"/'a b/loop.json'`},
		{"/p/loop.json", "$GEMINI_PROJECT_DIR", "$GEMINI_PROJECT_DIR/loop.json"},
		{"/q/loop.json", "$GEMINI_PROJECT_DIR", "/q/loop.json"},
		{"/p/../q/loop.json", "$GEMINI_PROJECT_DIR", "/p/../q/loop.json"},
		{"/p/loop.json", "", "/p/loop.json"},
	} {
		if got := PathArg(tt.path, "/p", tt.dirVar); got != tt.want {
			t.Errorf("PathArg(%s, %s) = %s, want %s", tt.path, tt.dirVar, got, tt.want)
		}
	}
	h := Hook{Binary: "/b in/hook-loop", Subcommand: "gemini-hook", Config: "c", Log: "l", Record: true, Mode: "warn", Store: " --store x"}
	if got, want := h.Command("AfterAgent"), `'/b in/hook-loop' gemini-hook --event AfterAgent --config c --event-log l --record --mode warn --store x`; got != want {
		t.Errorf("Command = %s\nwant %s", got, want)
	}
	if !RunsSubcommand("/x/hook-loop-hook gemini-hook --event A", "gemini-hook") || RunsSubcommand("echo gemini-hooks", "gemini-hook") {
		t.Error("RunsSubcommand")
	}
}

func TestUnmatched(t *testing.T) {
	want := []string{"Bash", "Monitor", "MultiEdit", "mcp__fs__write"}
	for _, tt := range []struct {
		matcher string
		missing string
	}{
		{"", ""}, {"*", ""},
		{"Bash|Edit|MultiEdit|Write|mcp__.*", "Monitor"},
		{"Bash|Edit|Monitor|MultiEdit|Write", "mcp__fs__write"},
		{"Bash|Edit|Write", "Monitor MultiEdit mcp__fs__write"},
		{"^(Bash|Monitor|MultiEdit|mcp_.*)$", ""},
		{"^(Bash|MultiEdit)$", "Monitor mcp__fs__write"},
		{"Edit", "Bash Monitor MultiEdit mcp__fs__write"}, // a plain name is matched exactly
		{"([", "Bash Monitor MultiEdit mcp__fs__write"},
	} {
		if got := strings.Join(Unmatched(tt.matcher, want), " "); got != tt.missing {
			t.Errorf("Unmatched(%q) = %q, want %q", tt.matcher, got, tt.missing)
		}
	}
}

func TestMatchers(t *testing.T) {
	doc := []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]},
		{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "hook-loop claude-hook --event PreToolUse"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "hook-loop claude-hook --event Stop"}]}]}}`)
	got := Matchers(doc, func(c string) bool { return RunsSubcommand(c, "claude-hook") })
	if len(got) != 2 || strings.Join(got["PreToolUse"], ",") != "Bash|Write" || len(got["Stop"]) != 1 || got["Stop"][0] != "" {
		t.Fatalf("Matchers = %q", got)
	}
}
