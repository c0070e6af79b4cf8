package settingshooks

import "testing"

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
