package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/guard"
)

// guardProject is a temp project with every file the guard protects, a
// home with the user-level installs, a lifecycle declaration with its
// executor, symlinks to protected files and folders, and the engine that
// judges tool calls in it (owned paths from the real registry).
type guardProject struct {
	root, home, codexHome, piDir, cfgHome, self string
	eng                                         *engine.Engine
}

func newGuardProject(t *testing.T, failClosed bool) *guardProject {
	t.Helper()
	base := t.TempDir()
	g := &guardProject{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home"),
		codexHome: filepath.Join(base, "codexhome"), piDir: filepath.Join(base, "piagent"),
		cfgHome: filepath.Join(base, "xdgconfig"), self: filepath.Join(base, "bin", "hl")}
	for _, f := range []string{
		"proj/hook-loop.json", "proj/package.json", "proj/.hook-loop/events.jsonl", "proj/.hook-loop/events.jsonl.lock",
		"proj/.claude/settings.json", "proj/.claude/agents/reviewer.md", "proj/.codex/hooks.json", "proj/.codex/config.toml",
		"proj/.opencode/plugins/hook_loop.js", "proj/.pi/extensions/hook_loop.ts", "proj/build/x.o", "proj/sub/a.txt",
		"proj/a.txt", "proj/.git/HEAD", "proj/shared/settings.json",
		"home/.claude/settings.json", "codexhome/hooks.json",
		"piagent/extensions/hook_loop.ts", "xdgconfig/hook-loop/hooks/check.py", "bin/hl",
	} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	decl := filepath.Join(g.cfgHome, "hook-loop", "config.yaml")
	if err := os.WriteFile(decl, []byte("hooks:\n  - name: check\n    path: hooks/check.py\n    on: [loop_start]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"proj/cfg.json":                    "hook-loop.json",
		"proj/sub/state":                   "../.hook-loop",
		"proj/.claude/settings.local.json": "../shared/settings.json",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": g.home, "CODEX_HOME": g.codexHome, "PI_CODING_AGENT_DIR": g.piDir, "XDG_CONFIG_HOME": g.cfgHome}
	getenv := func(k string) string { return vars[k] }
	loopDoc := `{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"], "fail_closed": ` +
		map[bool]string{true: "true", false: "false"}[failClosed] + `,
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`
	spec, _, err := dsl.Parse(filepath.Join(g.root, "hook-loop.json"), []byte(loopDoc))
	if err != nil {
		t.Fatal(err)
	}
	owned := append(hooks.OwnedPaths(hooks.All(), g.home, getenv), lifecycle.OwnedFiles("", getenv)...)
	g.eng = &engine.Engine{Spec: spec, Root: g.root, ConfigPath: filepath.Join(g.root, "hook-loop.json"),
		LogPath: filepath.Join(g.root, ".hook-loop", "events.jsonl"), OwnedPaths: owned,
		Home: g.home, Vars: vars, Self: func() string { return g.self }}
	return g
}

func (g *guardProject) bash(cmd string) guard.Check {
	ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: g.root, Command: cmd}
	return g.eng.CheckTool(&ev, "a")
}

// TestGuardIssue13: known ways around the gate (deleting or replacing the
// loop file, running hook-loop, holding its locks, risky commands) are refused
// through the engine, each with the rule that refuses it, and the allowed
// examples (and reading every protected file) stay allowed.
func TestGuardIssue13(t *testing.T) {
	g := newGuardProject(t, false)
	blocked := []struct{ cmd, rule string }{
		// Deleting, emptying or replacing the loop file.
		{"rm *.json", "loop_file"},
		{"git stash -u", "loop_file"},
		{"find . -name '*.json' -delete", "risky_command"},
		{"mv hook-loop.json{,.bak}", "loop_file"},
		{`python3 -c "import os; os.remove('hook-loop.json')"`, "loop_file"},
		// hook-loop run by the agent.
		{"hook-loop codex uninstall --purge --write", "hook_loop_command"},
		{`echo '{"hook_event_name":"Stop"}' | hook-loop claude-hook`, "hook_loop_command"},
		// Its locks.
		{"flock .hook-loop/events.jsonl.lock sleep 100000 &", "loop_lock"},
		{`python3 -c "import fcntl; fcntl.flock(open('.hook-loop/events.jsonl.lock'), fcntl.LOCK_EX)"`, "loop_lock"},
		{"sudo rm -rf /", "risky_command"},
		// Write targets read literally before.
		{"rm -f ./*.json", "loop_file"},
		{"rm {hook-loop,package}.json", "loop_file"},
		{"rm $PWD/hook-loop.json", "loop_file"},
		{`rm "$(pwd)/hook-loop.json"`, "loop_file"},
		{"cd .hook-loop && rm events.jsonl", "loop_file"},
		{"(cd .hook-loop; rm -f events.jsonl)", "loop_file"},
		{"pushd .hook-loop && rm events.jsonl && popd", "loop_file"},
		{"echo x > cfg.json", "loop_file"},
		{"rm sub/state/events.jsonl", "loop_file"},
		{"perl -pi -e 's/a/b/' hook-loop.json", "loop_file"},
		{"sed -Ei 's/a/b/' hook-loop.json", "loop_file"},
		{"sed --in-place 's/a/b/' hook-loop.json", "loop_file"},
		{"awk -i inplace '{print}' hook-loop.json", "loop_file"},
		{"git checkout -- hook-loop.json", "loop_file"},
		{"git restore hook-loop.json", "loop_file"},
		{"git rm hook-loop.json", "loop_file"},
		{"git mv hook-loop.json old.json", "loop_file"},
		{"rsync -a /tmp/evil/ .hook-loop/", "loop_file"},
		{"cp --target-directory=.hook-loop a.txt", "loop_file"},
		{"dd if=/dev/zero of=hook-loop.json bs=1 count=0", "loop_file"},
		{`node -e "require('fs').unlinkSync('hook-loop.json')"`, "loop_file"},
		{`perl -e 'unlink "hook-loop.json"'`, "loop_file"},
		{`ruby -e 'File.delete("hook-loop.json")'`, "loop_file"},
		// Folders as folders, and their moves.
		{"mv .codex x", "loop_file"},
		{"rm -f .claude/*", "loop_file"},
		{"mv .claude elsewhere", "loop_file"},
		{"echo x > .codex/new.toml", "loop_file"},
		{"echo 'x' > .opencode/plugins/mine.js", "loop_file"},
		{"cp a.txt .pi/extensions/", "loop_file"},
		{"echo {} > shared/settings.json", "loop_file"}, // the target of a symlinked settings file
		// User-level installs and the lifecycle declaration with its executor.
		{"echo {} > ~/.claude/settings.json", "loop_file"},
		{"rm $CODEX_HOME/hooks.json", "loop_file"},
		{"rm $PI_CODING_AGENT_DIR/extensions/hook_loop.ts", "loop_file"},
		{"echo x > $XDG_CONFIG_HOME/opencode/plugins/hook_loop.js", "loop_file"},
		{"echo hooks: [] > $XDG_CONFIG_HOME/hook-loop/config.yaml", "loop_file"},
		{"echo 'print(1)' > $XDG_CONFIG_HOME/hook-loop/hooks/check.py", "loop_file"},
		// Missing risky commands.
		{`\rm -rf build`, "risky_command"},
		{"command rm -rf build", "risky_command"},
		{"find . -name '*.o' -exec rm {} +", "risky_command"},
		{"git checkout -f", "risky_command"},
		{"git stash drop", "risky_command"},
		{"git stash clear", "risky_command"},
		{"git branch -D topic", "risky_command"},
		{"git branch --delete --force topic", "risky_command"},
		{"git push origin :topic", "risky_command"},
		{"git push origin --delete topic", "risky_command"},
	}
	for _, c := range blocked {
		got := g.bash(c.cmd)
		if !got.Blocked || got.Rule != c.rule {
			t.Errorf("%q: %+v, want blocked by %s", c.cmd, got, c.rule)
		}
	}
	allowed := []string{
		"cat hook-loop.json .hook-loop/events.jsonl .claude/settings.json .codex/hooks.json ~/.claude/settings.json",
		"cat $CODEX_HOME/hooks.json $XDG_CONFIG_HOME/hook-loop/config.yaml .opencode/plugins/hook_loop.js | head",
		"rm -f build/x.o",
		"git stash list",
		"python3 -c 'print(1)'",
		"hook-loop status",
		"echo hi > .claude/notes.md",
		"cp hook-loop.json /tmp/copy.json",
	}
	for _, cmd := range allowed {
		if got := g.bash(cmd); got.Blocked || got.Note != "" {
			t.Errorf("%q: %+v, want allowed", cmd, got)
		}
	}
}

// TestGuardHookLoopCommands: hook-loop's writing commands are refused however
// the binary is named or wrapped; its read-only ones are allowed.
func TestGuardHookLoopCommands(t *testing.T) {
	g := newGuardProject(t, false)
	for _, cmd := range []string{
		"hook-loop claude install --write", "hook-loop uninstall", "hook-loop reload --session s1",
		"hook-loop pause", "hook-loop resume", "hook-loop cancel", "hook-loop approve", "hook-loop reject",
		"hook-loop advance done", "hook-loop reset", "hook-loop init", "hook-loop store migrate --to x.jsonl",
		"hook-loop codex-hook --event Stop", "hook-loop serve --stdio",
		"hook-loop replay trace.jsonl", "hook-loop some-future-command",
		"./bin/hook-loop pause", "/usr/local/bin/hook-loop claude uninstall",
		g.self + " codex uninstall --write",
		"hook-loop-hook codex-hook --event Stop", "/usr/local/bin/hook-loop-hook codex uninstall --write",
		"env hook-loop-hook pause",
		"env FOO=1 hook-loop pause", "command hook-loop pause", "exec hook-loop pause",
		"sh -c 'hook-loop codex uninstall --write'", "bash -lc \"cd . && hook-loop reset\"",
		"echo codex | xargs hook-loop uninstall", "nohup hook-loop serve &",
		`python3 -c "import subprocess; subprocess.run(['hook-loop', 'codex', 'uninstall', '--write'])"`,
	} {
		if got := g.bash(cmd); !got.Blocked || got.Rule != "hook_loop_command" || !strings.Contains(got.Reason, "the person's to run") {
			t.Errorf("%q: %+v, want blocked as a hook-loop command", cmd, got)
		}
	}
	for _, cmd := range []string{
		"hook-loop status", "hook-loop status --json", "hook-loop log", "hook-loop log verify", "hook-loop log --follow",
		"hook-loop validate", "hook-loop graph --format mermaid", "hook-loop simulate", "hook-loop doctor",
		"hook-loop hooks", "hook-loop hooks points", "hook-loop --help", "hook-loop codex uninstall --help",
		"hook-loop --version", "hook-loop gallery", "hook-loop schema", "hook-loop", g.self + " status",
		"hook-loop-hook status", "hook-loop-hook --version",
		"which hook-loop", "grep hook-loop README.md",
	} {
		if got := g.bash(cmd); got.Blocked {
			t.Errorf("%q: %+v, want allowed", cmd, got)
		}
	}
}

// TestGuardUncertain: a command whose targets cannot be known is refused
// when the loop is fail_closed and allowed with a note otherwise.
func TestGuardUncertain(t *testing.T) {
	for _, cmd := range []string{"ls | xargs rm", `rm "$UNSET_VAR"/x`, "tar xzf /tmp/a.tgz"} {
		open := newGuardProject(t, false).bash(cmd)
		if open.Blocked || !strings.Contains(open.Note, "could not tell") {
			t.Errorf("fail open %q: %+v, want allowed with a note", cmd, open)
		}
		closed := newGuardProject(t, true).bash(cmd)
		if !closed.Blocked || closed.Rule != "uncertain_write" {
			t.Errorf("fail closed %q: %+v, want blocked", cmd, closed)
		}
	}
}

// The lean hook binary runs the hooks (Self), and hook-loop sits beside it: a
// link of any name to either is hook-loop, so the agent cannot run hook-loop's
// writing commands through a renamed link to the binary the hook is not.
func TestGuardRecognisesTheSiblingBinary(t *testing.T) {
	g := newGuardProject(t, false)
	bin := t.TempDir()
	lean, full := filepath.Join(bin, "hook-loop-hook"), filepath.Join(bin, "hook-loop")
	for _, f := range []string{lean, full} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := t.TempDir()
	for name, target := range map[string]string{"hl": full, "hlh": lean} {
		if err := os.Symlink(target, filepath.Join(links, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, self := range []string{lean, full} {
		g.eng.Self = func() string { return self }
		for _, link := range []string{"hl", "hlh"} {
			cmd := filepath.Join(links, link) + " claude uninstall --write"
			if got := g.bash(cmd); !got.Blocked || got.Rule != "hook_loop_command" {
				t.Errorf("self %s, %q: %+v, want blocked as a hook-loop command", filepath.Base(self), cmd, got)
			}
		}
		if got := g.bash(filepath.Join(links, "hl") + " status"); got.Blocked {
			t.Errorf("self %s: status through a link: %+v, want allowed", filepath.Base(self), got)
		}
	}
}
