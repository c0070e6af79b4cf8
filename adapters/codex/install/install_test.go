package install

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/testkit/need"
	"github.com/tidwall/gjson"
)

const foreign = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo foreign","timeout":5},{"type":"command","command":"'/old/hook-loop' codex-hook --event PreToolUse","timeout":30}]}],"Stop":[{"hooks":[{"type":"command","command":"/old/hook-loop codex-hook --event Stop"}]}]},"keep":{"a":1}}`

func TestMergeKeepsForeignAndReplacesOwn(t *testing.T) {
	out, err := MergeCodexHooks([]byte(foreign), "/bin dir/hook-loop", "/p q/hook-loop.json", "/p q/.hook-loop/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	doc := gjson.ParseBytes(out)
	if doc.Get("keep.a").Int() != 1 {
		t.Errorf("foreign key lost:\n%s", out)
	}
	// The mixed group keeps its foreign handler and loses the old hook-loop one.
	g := doc.Get("hooks.PreToolUse.0")
	if g.Get("matcher").Str != "Bash" || len(g.Get("hooks").Array()) != 1 || g.Get("hooks.0.command").Str != "echo foreign" {
		t.Errorf("mixed group: %s", g.Raw)
	}
	cmds := hookCommands(out)
	if len(cmds) != len(codexEvents) {
		t.Errorf("events with hook-loop hooks: %d, want %d", len(cmds), len(codexEvents))
	}
	for ev, cs := range cmds {
		if len(cs) != 1 {
			t.Errorf("%s: %d hook-loop commands, want 1: %q", ev, len(cs), cs)
		}
		want := "'/bin dir/hook-loop' codex-hook --event " + ev + " --config '/p q/hook-loop.json' --event-log '/p q/.hook-loop/events.jsonl'"
		if cs[0] != want {
			t.Errorf("%s command %q, want %q", ev, cs[0], want)
		}
		if got := shell.Words(cs[0]); got[0] != "/bin dir/hook-loop" || scaffold.FlagValue(got, "--config") != "/p q/hook-loop.json" {
			t.Errorf("command does not parse back: %q", got)
		}
	}
	again, err := MergeCodexHooks(out, "/bin dir/hook-loop", "/p q/hook-loop.json", "/p q/.hook-loop/events.jsonl")
	if err != nil || string(again) != string(out) {
		t.Errorf("merge is not idempotent (err %v):\n%s\n---\n%s", err, out, again)
	}
	removed, n, err := RemoveCodexHooks(out)
	if err != nil || n != len(codexEvents) {
		t.Fatalf("remove: %d, %v", n, err)
	}
	if len(hookCommands(removed)) != 0 || !strings.Contains(string(removed), "echo foreign") {
		t.Errorf("after remove:\n%s", removed)
	}
}

func TestMergeErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"hooks":`:      "$: invalid JSON",
		`[1]`:            "$: expected an object",
		`{"hooks":[1]}`:  "$.hooks: expected an object",
		`{"hooks":null}`: "$.hooks: expected an object",
	} {
		if _, err := MergeCodexHooks([]byte(in), "/b", "/c", "/l"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
	if out, err := MergeCodexHooks(nil, "/b", "/c", "/l"); err != nil || len(hookCommands(out)) != len(codexEvents) {
		t.Errorf("empty file: %v", err)
	}
}

func TestIsCodexHookCommand(t *testing.T) {
	for c, want := range map[string]bool{
		"/x/hook-loop codex-hook --event Stop": true,
		"hook-loop codex-hook":                 true,
		"echo codex-hooked":                    false,
		"hook-loop claude-hook --event Stop":   false,
	} {
		if isHookCommand(c) != want {
			t.Errorf("IsCodexHookCommand(%q) != %v", c, want)
		}
	}
}

func TestReadCodexConfig(t *testing.T) {
	home := t.TempDir()
	c, err := readCodexConfig(home)
	if err != nil || c.Exists || c.HooksDisabled != "" {
		t.Fatalf("absent config: %+v %v", c, err)
	}
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(`model = "m"
[features]
codex_hooks = false
[projects."/a/b"]
trust_level = "trusted"
[hooks.state."/a/b/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:x"
`), 0o644)
	c, err = readCodexConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if c.HooksDisabled != "[features] codex_hooks = false" || !c.ProjectTrusted("/a/b/c") || c.ProjectTrusted("/a") ||
		!reflect.DeepEqual(c.TrustedHashes, map[string]string{"/a/b/.codex/hooks.json:stop:0:0": "sha256:x"}) {
		t.Errorf("config: %+v", c)
	}
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[features\n"), 0o644)
	if _, err := readCodexConfig(home); err == nil || !strings.Contains(err.Error(), "config.toml") {
		t.Errorf("bad TOML error %v should name the file", err)
	}
}

// TestTrustAndUntrustWithRealCodex drives the real `codex app-server`: install
// trusts the project and exactly hook-loop's handlers (not a foreign one), and
// untrust removes exactly those entries again.
func TestTrustAndUntrustWithRealCodex(t *testing.T) {
	codex := need.Harness(t, "codex")
	root := t.TempDir()
	dir, home := filepath.Join(root, "my repo"), filepath.Join(root, "codex home")
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	// A foreign hook beside ours must keep its own (untrusted) state.
	os.MkdirAll(filepath.Join(dir, ".codex"), 0o755)
	os.WriteFile(filepath.Join(dir, ".codex", "hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo foreign"}]}]}}`), 0o644)
	plan, err := planInstall(planOptions{Destination: dir, CodexHome: home, Binary: "/usr/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := TrustCodex(ctx, codex, home, dir, plan.HooksPath, true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ProjectTrustAdded || len(res.TrustedKeys) != len(codexEvents) {
		t.Fatalf("trust result: %+v", res)
	}
	cfg, err := readCodexConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ProjectTrusted(dir) || len(cfg.TrustedHashes) != len(codexEvents) {
		t.Fatalf("config after trust: %+v", cfg)
	}
	for k := range cfg.TrustedHashes {
		if strings.HasSuffix(k, ":stop:0:0") {
			t.Errorf("the foreign Stop hook (group 0) was trusted: %s", k)
		}
	}
	// Idempotent: a second run finds everything trusted.
	res, err = TrustCodex(ctx, codex, home, dir, plan.HooksPath, true)
	if err != nil || res.ProjectTrustAdded || len(res.AlreadyTrusted) != len(codexEvents) || len(res.TrustedKeys) != 0 {
		t.Fatalf("second trust: %+v %v", res, err)
	}
	env := &setup.DoctorEnv{Ctx: ctx, Dir: dir, CodexHome: home, CodexBin: codex}
	var okTrust bool
	for _, f := range checkInstall(env) {
		if f.Level == setup.LevelFail && !strings.Contains(f.What, "/usr/bin/true") {
			t.Errorf("doctor after trust: %+v", f)
		}
		okTrust = okTrust || (f.Level == setup.LevelOK && strings.Contains(f.What, "codex trusts all 10 hook-loop hooks"))
	}
	if !okTrust {
		t.Errorf("doctor did not confirm hash trust: %+v", checkInstall(env))
	}
	// A changed entry is "modified": doctor says so.
	b, _ := os.ReadFile(plan.HooksPath)
	os.WriteFile(plan.HooksPath, []byte(strings.Replace(string(b), `"timeout": 30`, `"timeout": 31`, 1)), 0o644)
	var modified bool
	for _, f := range checkInstall(env) {
		modified = modified || (f.Level == setup.LevelFail && strings.Contains(f.What, "is modified"))
	}
	if !modified {
		t.Errorf("doctor missed a modified hook: %+v", checkInstall(env))
	}
	os.WriteFile(plan.HooksPath, b, 0o644)

	keys, err := untrustCodex(ctx, codex, home, dir, plan.HooksPath, true)
	if err != nil || len(keys) != len(codexEvents) {
		t.Fatalf("untrust: %q %v", keys, err)
	}
	cfg, _ = readCodexConfig(home)
	if cfg.ProjectTrusted(dir) || len(cfg.TrustedHashes) != 0 {
		t.Errorf("config after untrust: %+v", cfg)
	}
}
