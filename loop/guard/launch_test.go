package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
)

// launchProject is a project with the loop's files and the policy that
// guards it; risky is the loop's risky_commands, so that a launch of
// hook-loop is shown refused by the loop-file check alone (sudo is refused
// as a risky command whatever it runs).
func launchProject(t *testing.T, risky, failClosed bool) *Policy {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	for _, f := range []string{
		"hook-loop.json", ".hook-loop/events.jsonl", ".hook-loop/events.jsonl.lock", ".claude/settings.json",
		"go.mod", "main.go", "a.txt", "sub/b.txt", "package.json", "server.pid", "files.txt", "cmds.txt",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := map[bool]string{true: "true", false: "false"}
	doc := `{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"fail_closed": ` + b[failClosed] + `, "guardrails": {"risky_commands": ` + b[risky] + `},
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`
	spec, _, err := dsl.Parse(filepath.Join(root, "hook-loop.json"), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	return &Policy{Def: spec.Definition, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json"),
		LogPath: filepath.Join(root, ".hook-loop", "events.jsonl"), OwnedPaths: []string{".claude/settings.json"},
		Home: home, Vars: map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}}
}

func wantRefused(t *testing.T, p *Policy, cmd string) {
	t.Helper()
	if got := p.bash(cmd); !got.Blocked {
		t.Errorf("%s: allowed", cmd)
	}
}

func wantAllowed(t *testing.T, p *Policy, cmd string) {
	t.Helper()
	if got := p.bash(cmd); got.Blocked {
		t.Errorf("%s: refused (%s)", cmd, got.Reason)
	}
}

func (p *Policy) bash(cmd string) Check {
	ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: p.Root, Command: cmd}
	return p.Check(&ev, p.Read(&ev), "a")
}

// TestLaunchedHookLoopRefused: hook-loop's writing commands are refused
// whatever launcher (with whatever options) runs them, nested or not, and
// events piped into a *-hook command through one are refused too.
func TestLaunchedHookLoopRefused(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"nice -n 5 hook-loop cancel", "nice -5 hook-loop cancel", "nice --adjustment=5 hook-loop cancel",
		"timeout -s KILL 10 hook-loop cancel", "timeout -k 5 10 hook-loop cancel", "timeout --signal KILL 10s hook-loop cancel",
		"env -u X hook-loop cancel", "env -C /tmp hook-loop cancel", "env -i PATH=/usr/bin hook-loop cancel",
		"env -S 'hook-loop cancel'", "env --unset=X -- hook-loop cancel", "env - hook-loop cancel",
		"exec -a x hook-loop cancel", "exec -cl hook-loop cancel", "exec -c -a x hook-loop cancel",
		"setsid hook-loop uninstall", "setsid -f -w hook-loop uninstall",
		"ionice -c 3 hook-loop cancel", "ionice -c 2 -n 7 hook-loop cancel", "ionice -c3 hook-loop cancel",
		"chrt -f 10 hook-loop cancel", "chrt --idle 0 hook-loop cancel", "chrt -T 5 -P 10 -d 0 hook-loop cancel",
		"taskset 0x1 hook-loop cancel", "taskset -c 0 hook-loop cancel", "taskset --cpu-list 0-1 hook-loop cancel",
		"stdbuf -o L hook-loop cancel", "stdbuf -oL -eL hook-loop cancel", "stdbuf --output=L hook-loop cancel",
		"nohup hook-loop cancel &", "nohup hook-loop cancel > /dev/null 2>&1 &",
		"echo cancel | xargs hook-loop", "xargs -n 1 hook-loop < cmds.txt", "printf cancel | xargs -I{} hook-loop {}",
		"xargs -a cmds.txt hook-loop", "echo cancel | xargs -r -P 2 hook-loop",
		`find . -maxdepth 0 -exec hook-loop cancel \;`, "find . -maxdepth 0 -execdir hook-loop cancel {} +",
		`find . -maxdepth 0 -ok hook-loop cancel \;`, `find . -maxdepth 0 -okdir hook-loop cancel \;`,
		`find . -name x -print -exec true \; -exec hook-loop cancel \;`,
		"parallel hook-loop ::: cancel", "parallel -j1 hook-loop {} ::: cancel", "parallel 'hook-loop {}' ::: cancel",
		"watch -n 1 hook-loop cancel", "watch -n1 'hook-loop cancel'", "watch -x hook-loop cancel",
		"script -q -c 'hook-loop cancel' /dev/null", "script -qc 'hook-loop cancel' /dev/null", "script --command 'hook-loop cancel'",
		"sudo -u me hook-loop cancel", "sudo -E hook-loop cancel", "sudo -s hook-loop cancel", "doas -u me hook-loop cancel",
		"su -c 'hook-loop cancel'", "su - me -c 'hook-loop cancel'", "su me --command='hook-loop cancel'",
		"runuser -u me -- hook-loop cancel", "runuser -l me -c 'hook-loop cancel'",
		"command hook-loop cancel", "builtin exec hook-loop cancel", "time hook-loop cancel", "time -p hook-loop cancel",
		"/usr/bin/time -o t.txt hook-loop cancel", "busybox nice hook-loop cancel", "busybox timeout 5 hook-loop cancel",
		"nice env timeout 5 hook-loop cancel", "nice -n 5 env -u X timeout -s KILL 10 setsid -f hook-loop cancel",
		"ionice -c 3 nice -n 19 stdbuf -oL taskset -c 0 hook-loop uninstall", "timeout 5 sh -c 'nice -n 1 hook-loop cancel'",
		"echo '{}' | nice -n 5 hook-loop claude-hook", "cat a.txt | timeout 5 hook-loop codex-hook --event Stop",
		"echo '{}' | env -u X hook-loop-hook claude-hook", "echo '{}' | setsid hook-loop pi-hook",
		"nice -n 5 hook-loop doctor --fix", "hook-loop doctor --fix", "hook-loop simulate --event-log .hook-loop/events.jsonl --session-id s",
		"hook-loop simulate --resume",
	} {
		wantRefused(t, p, cmd)
	}
}

// TestLaunchedWritesRefused: a launcher does not hide what the program it
// runs writes or locks.
func TestLaunchedWritesRefused(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"nice -n 5 rm .hook-loop/events.jsonl", "timeout -s KILL 10 rm hook-loop.json", "env -u X cp a.txt hook-loop.json",
		"exec -a x tee .hook-loop/events.jsonl < a.txt", "ionice -c 3 sed -i s/a/b/ hook-loop.json",
		"chrt -f 10 truncate -s0 .hook-loop/events.jsonl", "taskset -c 0 mv hook-loop.json x.json",
		"stdbuf -o L cp a.txt hook-loop.json", "setsid -f rm .hook-loop/events.jsonl", "env -C sub rm ../hook-loop.json",
		"nice -n 5 flock .hook-loop/events.jsonl.lock sleep 600", "timeout -k 1 600 flock -x .hook-loop/events.jsonl.lock sleep 600",
		`find . -maxdepth 0 -exec nice -n 5 rm hook-loop.json \;`, "watch -n 1 rm hook-loop.json",
		"su -c 'rm hook-loop.json'", "script -c 'rm hook-loop.json' /dev/null", "env -S 'rm hook-loop.json'",
		"nice -n 5 env -u X timeout -s KILL 10 truncate -s 0 .hook-loop/events.jsonl",
		"runuser -u me -- cp a.txt .claude/settings.json",
	} {
		wantRefused(t, p, cmd)
	}
}

// TestKillByLookupRefused: a kill whose pids are not literal, on a line that
// names hook-loop's processes, and pkill/killall patterns matching a hook's
// command line are refused.
func TestKillByLookupRefused(t *testing.T) {
	p := launchProject(t, true, false)
	for _, cmd := range []string{
		"kill -STOP $(pgrep -f hook)", "kill $(pgrep -f hook-loop)", "kill $(pidof hook-loop)", "kill -9 $(pidof hook-loop-hook)",
		"kill -s STOP `pgrep -f claude-hook`", "pgrep -f hook | xargs kill", "pgrep -f hook | xargs kill -STOP",
		"ps aux | grep hook | awk '{print $2}' | xargs kill -9",
		`for p in /proc/[0-9]*; do grep -qs hook "$p/cmdline" && kill -STOP "${p#/proc/}"; done`,
		"pids=$(pgrep -f hook); kill $pids", "kill -STOP $(pgrep -f 'h[o]ok')", "kill -STOP $(pgrep -f \"$(printf ho)ok\")",
		"pkill -f hook", "pkill -STOP -f 'h[o]ok'", "killall -r 'hook.*'", "killall hook-loop", "pkill -f 'hook-loop-h'",
		"nice pkill -f hook", "timeout 5 killall hook-loop", "env -u X pkill -STOP -f codex-hook",
		"while true; do pkill -STOP -f hook; done &", "pkill -f \"$PAT\"",
	} {
		wantRefused(t, p, cmd)
	}
}

// TestEverydayCommandsAllowed: the commands of an ordinary coding session at
// the project root, launchers included, are not refused, under fail_closed
// too.
func TestEverydayCommandsAllowed(t *testing.T) {
	cmds := []string{
		"go build ./...", "go test ./...", "go vet ./...", "go mod tidy", "go mod download", "go generate ./...",
		"make", "make test", "nice make -j4", "nice -n 10 make -j4", "timeout 60 go test ./...",
		"timeout -k 5 120 go test -race ./...", "find . -name '*.go' -exec gofmt -l {} +", "echo a b | xargs -n1 echo",
		"env GOOS=linux go build ./...", "env -u GOFLAGS go test ./...", "git status", "git diff", "git diff --stat HEAD~1",
		"git log --oneline -5", "git commit -am 'fix the parser'", "git add -A", "git push", "git push origin main",
		"git pull --rebase", "git switch -c topic", "git show HEAD", "npm install", "npm test", "npm run build",
		"pnpm install", "pnpm test", "yarn", "yarn test", "pip install -r requirements.txt", "python3 -m pytest -q",
		"pytest -q", "cargo build", "cargo test", "cargo fmt", "rustfmt src/main.rs", "gofmt -w main.go",
		"prettier --write src", "black .", "ruff check --fix .", "eslint --fix src", "ls -la", "cat a.txt",
		"grep -rn TODO .", "rg foo", "mkdir -p build", "rm -f build/x.o", "cp a.txt b.txt", "mv a.txt c.txt",
		"touch sub/new.txt", "sed -i s/a/b/ a.txt", "hook-loop status", "hook-loop log", "hook-loop log verify",
		"timeout 10 hook-loop status", "nice hook-loop validate", "env NO_COLOR=1 hook-loop graph", "hook-loop doctor",
		"hook-loop --version", "hook-loop help", "hook-loop hooks", "hook-loop gallery", "hook-loop simulate",
		"kill %1", "kill $!", "kill 1234", "kill -9 1234", "kill $(cat server.pid)", "kill $(lsof -t -i:3000)",
		"pkill -f 'node server.js'", "killall python3", "time go test ./...", "command -v go",
		"nohup npm start > server.log 2>&1 &", "docker compose up -d", "xargs -r gofmt -l < files.txt",
		"find . -name '*.tmp' -print", "ionice -c 3 nice -n 19 make", "stdbuf -oL go test ./... | tee test.log",
		"git ls-files | xargs wc -l", "find . -name '*.go' | xargs grep -l TODO", "watch -n 5 go test ./...",
		"taskset -c 0 go test -bench .", "chrt --idle 0 make", "setsid npm start", "exec go run .",
		"find . -type f -name '*.go' -execdir go vet \\;", "parallel gofmt -l ::: main.go", "env -i PATH=/usr/bin go env",
		"go fmt ./...", "goimports -w .", "golangci-lint run ./...", "npm ci", "npx prettier --check .", "npx tsc --noEmit",
		"bun install", "bun test", "uv run pytest", "poetry run pytest -x", "mvn -q test", "./gradlew build",
		"gradle test", "dotnet test", "bundle exec rspec", "composer install", "clang-format -i src/main.c",
		"cmake -S . -B build && cmake --build build", "git fetch origin", "git stash list", "git stash show -p",
		"git checkout -b feature", "git merge main", "git tag v1.0.0", "git blame main.go", "git rebase main",
		"curl -s http://localhost:3000/health", "tar czf dist.tgz dist", "unzip -l x.zip", "diff -u a.txt b.txt",
		"cat hook-loop.json", "jq .loop.states hook-loop.json", "head -n 20 .hook-loop/events.jsonl",
		"wc -l .hook-loop/events.jsonl", "grep -n initial_state hook-loop.json", "git diff hook-loop.json",
		"cp hook-loop.json /tmp/loop-copy.json", "ls -la .hook-loop", "hook-loop validate hook-loop.json",
		"sort a.txt | uniq -c", "tail -f server.log", "cargo clippy -- -D warnings", "deno fmt", "zig build test",
	}
	if len(cmds) < 100 {
		t.Fatalf("only %d everyday commands", len(cmds))
	}
	for _, failClosed := range []bool{false, true} {
		p := launchProject(t, true, failClosed)
		for _, cmd := range cmds {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s): %s", failClosed, cmd, got.Rule, got.Reason)
			}
		}
	}
}
