package templates

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// OpencodeData mirrors what scaffold passes for the opencode plugin.
type opencodeData struct {
	Version, Bin, Config, EventLog, HooksConfig, Store, Mode string
	FailClosed, Record                                       bool
	MaxStopBlocks, TimeoutMS                                 int
}

func TestRenderQuotesStrings(t *testing.T) {
	d := opencodeData{Version: "dev", Bin: `/opt/my tools/"hook-loop"`, Config: `C:\loop\hook-loop.json`, EventLog: "/p/.hook-loop/events.jsonl",
		FailClosed: true, MaxStopBlocks: 5, TimeoutMS: 30000, Store: `postgres://team@db/loops?x="y"`}
	out, err := Render("opencode/hook_loop.js.tmpl", d)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`const HOOK_LOOP = "/opt/my tools/\"hook-loop\""`,
		`const CONFIG = "C:\\loop\\hook-loop.json"`,
		`const HOOKS_CONFIG = ""`,
		`const STORE = "postgres://team@db/loops?x=\"y\""`,
		`const FAIL_CLOSED = true`,
		`const DEFAULT_MAX_STOP_BLOCKS = 5`,
		`|| 30000)`,
		"hook-loop:managed-plugin",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("rendered plugin lacks %q", want)
		}
	}
	if strings.Contains(s, "{{") {
		t.Error("rendered plugin still holds template actions")
	}
}

func TestRenderMapAndErrors(t *testing.T) {
	if _, err := Render("opencode/nope.tmpl", nil); err == nil {
		t.Error("missing template: no error")
	}
	if _, err := Render("opencode/hook_loop.js.tmpl", map[string]any{"Bin": "x"}); err == nil || !strings.Contains(err.Error(), "no entry for key") {
		t.Errorf("missing key: %v", err)
	}
	if _, err := Render("opencode/hook_loop.js.tmpl", 3); err == nil {
		t.Error("non-struct data: no error")
	}
}

// TestOpencodePluginParses runs `node --check` on the rendered plugin (CI's check
// that the generated JavaScript is valid).
func TestOpencodePluginParses(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found on PATH: cannot syntax-check the rendered opencode plugin")
	}
	out, err := Render("opencode/hook_loop.js.tmpl", opencodeData{Version: "v1", Bin: "/a b/hook-loop", Config: "/a b/hook-loop.json",
		EventLog: "/a b/.hook-loop/events.jsonl", HooksConfig: "/cfg/hooks.json", MaxStopBlocks: 8, TimeoutMS: 30000})
	if err != nil {
		t.Fatal(err)
	}
	// .mjs: the plugin is an ES module, and node treats a bare .js as CommonJS.
	f := filepath.Join(t.TempDir(), "hook_loop.mjs")
	if err := os.WriteFile(f, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(node, "--check", f).CombinedOutput(); err != nil {
		t.Fatalf("node --check on the rendered plugin: %v\n%s", err, msg)
	}
	// Only functions may be exported: opencode calls every export as a plugin.
	probe := filepath.Join(t.TempDir(), "probe.mjs")
	src := "import * as m from " + jsString(f) + "\n" +
		"for (const [k, v] of Object.entries(m)) if (typeof v !== 'function') { console.error('non-function export ' + k); process.exit(1) }\n" +
		"const hooks = await m.HookLoopPlugin({ directory: '/tmp', worktree: '/', client: {} })\n" +
		"for (const k of ['tool.execute.before','tool.execute.after','chat.message','event','experimental.text.complete']) if (typeof hooks[k] !== 'function') { console.error('missing hook ' + k); process.exit(1) }\n"
	if err := os.WriteFile(probe, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(node, probe).CombinedOutput(); err != nil {
		t.Fatalf("loading the plugin in node: %v\n%s", err, msg)
	}
}

func jsString(s string) string { q, _ := jsonLiteral(s); return q }
