package install

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

var testHooks = installHooks{
	Binary:  "/opt/hook loop/bin/hook-loop",
	Config:  `"$CLAUDE_PROJECT_DIR"/hook-loop.json`,
	Log:     `"$CLAUDE_PROJECT_DIR"/.hook-loop/events.jsonl`,
	Matcher: "Bash|Write",
}

const userSettings = `{
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "model": "sonnet",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]},
      {"matcher": "*", "hooks": [
        {"type": "command", "command": "/old/hook-loop claude-hook --event PreToolUse"},
        {"type": "command", "command": "audit.sh"}
      ]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "/old/hook-loop claude-hook --event Stop"}]}]
  },
  "env": {"FOO": "bar"}
}`

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestMergeClaudeSettingsKeepsEverythingElse(t *testing.T) {
	merged, err := mergeSettings([]byte(userSettings), testHooks)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"permissions", "model", "env", "hooks.Notification"} {
		if got, want := gjson.GetBytes(merged, path).Raw, gjson.Get(userSettings, path).Raw; canonical(t, []byte(got)) != canonical(t, []byte(want)) {
			t.Errorf("%s changed:\n got %s\nwant %s", path, got, want)
		}
	}
	// The user's own PreToolUse group is first and untouched; the mixed group
	// keeps audit.sh and loses only the old hook-loop command.
	pre := gjson.GetBytes(merged, "hooks.PreToolUse").Array()
	if len(pre) != 3 {
		t.Fatalf("PreToolUse has %d groups, want 3: %s", len(pre), gjson.GetBytes(merged, "hooks.PreToolUse").Raw)
	}
	if pre[0].Get("hooks.0.command").String() != "echo mine" {
		t.Errorf("first group = %s", pre[0].Raw)
	}
	if cmds := pre[1].Get("hooks.#.command").Raw; canonical(t, []byte(cmds)) != `["audit.sh"]` {
		t.Errorf("mixed group kept %s, want only audit.sh", cmds)
	}
	cmds := Claude.hookCommands(merged)
	if len(cmds) != len(claude.NativeEvents) {
		t.Errorf("hook-loop hooks for %d events, want %d: %v", len(cmds), len(claude.NativeEvents), cmds)
	}
	for _, ev := range claude.NativeEvents {
		if len(cmds[ev]) != 1 {
			t.Errorf("%s: %d hook-loop commands, want exactly 1 (old ones replaced): %q", ev, len(cmds[ev]), cmds[ev])
			continue
		}
		want := `'/opt/hook loop/bin/hook-loop' claude-hook --event ` + ev + ` --config "$CLAUDE_PROJECT_DIR"/hook-loop.json --event-log "$CLAUDE_PROJECT_DIR"/.hook-loop/events.jsonl`
		if cmds[ev][0] != want {
			t.Errorf("%s command = %s\nwant %s", ev, cmds[ev][0], want)
		}
	}
	// Tool events carry the matcher; the others none.
	gjson.GetBytes(merged, "hooks").ForEach(func(ev, groups gjson.Result) bool {
		for _, g := range groups.Array() {
			if !Claude.isHookCommand(g.Get("hooks.0.command").String()) {
				continue
			}
			m := g.Get("matcher")
			if claude.IsToolEvent(ev.String()) != m.Exists() || (m.Exists() && m.String() != "Bash|Write") {
				t.Errorf("%s: matcher %s", ev, m.Raw)
			}
			if g.Get("hooks.0.timeout").Int() != claudeHookTimeout || g.Get("hooks.0.type").String() != "command" {
				t.Errorf("%s: hook entry %s", ev, g.Raw)
			}
		}
		return true
	})

	again, err := mergeSettings(merged, testHooks)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, merged) {
		t.Errorf("re-install changed the file:\n%s", scaffold.LineDiff("settings.json", merged, again))
	}

	removed, n, err := Claude.removeSettings(merged)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(claude.NativeEvents) {
		t.Errorf("removed %d entries, want %d", n, len(claude.NativeEvents))
	}
	if len(Claude.hookCommands(removed)) != 0 {
		t.Errorf("hook-loop hooks left after uninstall: %v", Claude.hookCommands(removed))
	}
	// Uninstall gives back the user's file without the old hook-loop entries.
	want, _, _ := Claude.removeSettings([]byte(userSettings))
	if canonical(t, removed) != canonical(t, want) {
		t.Errorf("after install+uninstall:\n%s\nwant\n%s", removed, want)
	}
	if gjson.GetBytes(removed, "hooks.Stop").Exists() {
		t.Errorf("an event list left empty was kept: %s", gjson.GetBytes(removed, "hooks").Raw)
	}
}

func TestMergeClaudeSettingsGolden(t *testing.T) {
	got, err := mergeSettings(nil, testHooks)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "golden", "claude_settings_new.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./adapters/claude/install -run Claude -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("new settings file differs from %s:\n%s", golden, scaffold.LineDiff(golden, want, got))
	}
	// Removing everything from a file hook-loop created leaves an empty object.
	empty, _, err := Claude.removeSettings(got)
	if err != nil || canonical(t, empty) != "{}" {
		t.Errorf("uninstall of a fresh install = %s, %v; want {}", empty, err)
	}
}

func TestMergeClaudeSettingsRejectsBadFiles(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"hooks": `, "not valid JSON"},
		{`[]`, "$ is not an object"},
		{`{"hooks": []}`, "$.hooks is not an object"},
		{`{"hooks": {"Stop": {"x": 1}}}`, "$.hooks.Stop is not an array"},
	} {
		_, err := mergeSettings([]byte(tt.in), testHooks)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Merge(%s) error = %v, want %q", tt.in, err, tt.want)
		}
	}
	// Removing from a file with no hook-loop hooks changes nothing at all.
	in := []byte("{\n    \"model\":   \"opus\"\n}\n")
	out, n, err := Claude.removeSettings(in)
	if err != nil || n != 0 || !bytes.Equal(out, in) {
		t.Errorf("Remove of a foreign file = %q, %d, %v", out, n, err)
	}
}

func TestClaudeMatcher(t *testing.T) {
	data, err := gallery.Get("plan_execute")
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("plan_execute", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolMatcher(spec); got != "Bash|Edit|Glob|Grep|LS|Monitor|MultiEdit|NotebookEdit|PowerShell|Read|Write|apply_patch|mcp__.*" {
		t.Errorf("plan_execute matcher = %q", got)
	}
	var idx int
	for i, r := range gjson.GetBytes(data, "codex.event_map").Array() {
		if r.Get("when.tool_name").String() == "Write" {
			idx = i
		}
	}
	anyTool, err := sjson.DeleteBytes(data, fmt.Sprintf("codex.event_map.%d.when.tool_name", idx))
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err = dsl.Parse("any", anyTool)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolMatcher(spec); got != "*" {
		t.Errorf("a PostToolUse rule without tool_name needs every tool; matcher = %q", got)
	}
	if got := toolMatcher(nil); got != "*" {
		t.Errorf("no spec: matcher %q", got)
	}
}

func TestClaudePathsAndQuoting(t *testing.T) {
	tests := []struct {
		path, project string
		rel           bool
		want          string
	}{
		{"/p/hook-loop.json", "/p", true, `"$CLAUDE_PROJECT_DIR"/hook-loop.json`},
		{"/p/sub dir/it's.json", "/p", true, `"$CLAUDE_PROJECT_DIR"/'sub dir/it'\''s.json'`},
		{"/elsewhere/loop.json", "/p", true, `/elsewhere/loop.json`},
		{"/p/hook-loop.json", "/p", false, `/p/hook-loop.json`},
		{"/pp/x.json", "/p", true, `/pp/x.json`},
	}
	for _, tt := range tests {
		if got := Claude.pathArg(tt.path, tt.project, tt.rel); got != tt.want {
			t.Errorf("ClaudePathArg(%q, %q, %v) = %s, want %s", tt.path, tt.project, tt.rel, got, tt.want)
		}
	}
	h := installHooks{Binary: "/a b/hook-loop"}
	if got := h.Command("Stop"); got != `'/a b/hook-loop' claude-hook --event Stop` {
		t.Errorf("Command = %s", got)
	}
	// The doctor reads the command back the way /bin/sh will.
	words := shell.Words(Claude.expandProjectDir(testHooks.Command("Stop"), "/my proj"))
	want := []string{"/opt/hook loop/bin/hook-loop", "claude-hook", "--event", "Stop", "--config", "/my proj/hook-loop.json", "--event-log", "/my proj/.hook-loop/events.jsonl"}
	if !reflect.DeepEqual(words, want) {
		t.Errorf("command words = %q\nwant %q", words, want)
	}
	for cmd, want := range map[string]bool{
		"/x/hook-loop claude-hook --event Stop": true,
		"hook-loop codex-hook --event Stop":     false,
		"echo claude-hooks":                     false,
	} {
		if Claude.isHookCommand(cmd) != want {
			t.Errorf("IsClaudeHookCommand(%q) = %v", cmd, !want)
		}
	}
}

func TestCheckClaude(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	text := func() string {
		var b strings.Builder
		setup.PrintFindings(&b, setup.Named("claude", Claude.CheckInstall(env)))
		return b.String()
	}
	if got := text(); !strings.Contains(got, "warn claude: hook-loop is not installed for Claude Code") {
		t.Errorf("empty project:\n%s", got)
	}

	bin := filepath.Join(t.TempDir(), "hook loop")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	loopData, _ := gallery.Get("plan_execute")
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), loopData, 0o644); err != nil {
		t.Fatal(err)
	}
	h := installHooks{Binary: bin, Config: Claude.pathArg(filepath.Join(dir, "hook-loop.json"), dir, true), Matcher: "*"}
	doc, err := mergeSettings([]byte(`{"model":"x"}`), h)
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := scaffold.WriteFileAtomic(settings, doc); err != nil {
		t.Fatal(err)
	}
	got := text()
	for _, want := range []string{
		"ok   claude: " + settings + " has hook-loop hooks for all 11 events",
		"ok   claude: hook binary " + bin + " is executable",
		"ok   claude: the loop file " + filepath.Join(dir, "hook-loop.json") + " is valid",
		"ok   claude: hooks are not disabled",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "fail") || strings.Contains(got, "warn") {
		t.Errorf("a good install has problems:\n%s", got)
	}

	// Broken: hooks disabled, the loop invalid, the binary gone, a second scope.
	doc2, _ := mergeSettings([]byte(`{"disableAllHooks": true}`), h)
	if err := scaffold.WriteFileAtomic(filepath.Join(home, ".claude", "settings.json"), doc2); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(`{"loop": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	got = text()
	for _, want := range []string{
		"fail claude: " + filepath.Join(home, ".claude", "settings.json") + " sets disableAllHooks",
		"warn claude: hook-loop hooks are installed in " + settings + " and ",
		"fail claude: " + settings + " runs " + bin + ", which does not exist",
		"fail claude: the loop file " + filepath.Join(dir, "hook-loop.json") + " does not load",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, got)
		}
	}
}

// TestCheckClaudeOlderMatcher: an install whose tool matcher leaves out a
// tool every install now shows hook-loop (Monitor and PowerShell came later)
// fails the doctor, with the reinstall as the fix; today's matcher passes.
func TestCheckClaudeOlderMatcher(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	bin := filepath.Join(t.TempDir(), "hook-loop")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	loopData, _ := gallery.Get("plan_execute")
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), loopData, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("hook-loop.json", loopData)
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, ".claude", "settings.json")
	for _, tt := range []struct {
		matcher string
		fails   bool
	}{
		{toolMatcher(spec), false},
		{"*", false},
		{"Bash|Edit|Glob|Grep|LS|MultiEdit|NotebookEdit|Read|Write|mcp__.*", true},
	} {
		h := installHooks{Binary: bin, Config: Claude.pathArg(filepath.Join(dir, "hook-loop.json"), dir, true), Matcher: tt.matcher}
		doc, err := mergeSettings(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		if err := scaffold.WriteFileAtomic(settings, doc); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		setup.PrintFindings(&b, setup.Named("claude", Claude.CheckInstall(env)))
		got := b.String()
		failed := strings.Contains(got, "does not show hook-loop Monitor, PowerShell") && strings.Contains(got, "hook-loop claude install --write")
		if failed != tt.fails {
			t.Errorf("matcher %q: failed %v, want %v:\n%s", tt.matcher, failed, tt.fails, got)
		}
	}
}
