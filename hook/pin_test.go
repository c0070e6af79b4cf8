package hook_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/session"
)

// isolate keeps the test's log keys and pinned loops in a temp state dir.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
}

func logTypes(t *testing.T, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, ".hook-loop", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			EventType string `json:"event_type"`
		}
		json.Unmarshal([]byte(line), &e)
		out = append(out, e.EventType)
	}
	return out
}

func count(types []string, want string) int {
	n := 0
	for _, t := range types {
		if t == want {
			n++
		}
	}
	return n
}

// A session keeps the loop it started with: whatever happens to the file, the
// next stops are judged by the pinned loop, and the change is recorded once.
func TestPinnedLoopSurvivesTheLoopFile(t *testing.T) {
	open := `{"loop": {"id": "t", "initial_state": "done", "states": ["done"], "events": [], "transitions": []}}`
	cases := []struct {
		name   string
		mutate func(path string) error
		record string
	}{
		{"deleted", os.Remove, session.TypeLoopFileMissing},
		{"emptied", func(p string) error { return os.WriteFile(p, nil, 0o644) }, session.TypeLoopFileChanged},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{"), 0o644) }, session.TypeLoopFileChanged},
		{"replaced by an open loop", func(p string) error { return os.WriteFile(p, []byte(open), 0o644) }, session.TypeLoopFileChanged},
		{"moved aside", func(p string) error { return os.Rename(p, p+".bak") }, session.TypeLoopFileMissing},
		{"made a directory", func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Mkdir(p, 0o755)
		}, session.TypeLoopFileMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			root := project(t, "")
			if out := run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false); !strings.HasPrefix(string(out.Stdout), "allow") {
				t.Fatalf("prompt: %q %q", out.Stdout, out.Stderr)
			}
			if err := c.mutate(filepath.Join(root, "hook-loop.json")); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				out := run(t, root, root, "Stop", `{"session":"s"}`, false)
				if !strings.HasPrefix(string(out.Stdout), "block:") || !strings.Contains(string(out.Stdout), `"a"`) {
					t.Fatalf("stop %d after the file was %s: %q / %q", i, c.name, out.Stdout, out.Stderr)
				}
				if told := strings.Contains(string(out.Stderr), "keeps its pinned loop"); told != (i == 0) {
					t.Errorf("stop %d: person told = %v (%q)", i, told, out.Stderr)
				}
			}
			types := logTypes(t, root)
			if count(types, session.TypeLoopPinned) != 1 || count(types, c.record) != 1 {
				t.Fatalf("want one loop_pinned and one %s: %v", c.record, types)
			}
		})
	}
}

// A session with no pinned loop whose installed hook names a file that is gone
// is refused, with how to restore or uninstall, even fail-open.
func TestGoneLoopFileRefusesNewSessions(t *testing.T) {
	for _, event := range []string{"Stop", "PreToolUse"} {
		t.Run(event, func(t *testing.T) {
			isolate(t)
			root := project(t, "")
			run(t, root, root, "UserPromptSubmit", `{"session":"s1","prompt":"go"}`, false)
			if err := os.Remove(filepath.Join(root, "hook-loop.json")); err != nil {
				t.Fatal(err)
			}
			out := run(t, root, root, event, `{"session":"s2","command":"ls"}`, false)
			for _, want := range []string{"block:", "git checkout hook-loop.json", "uninstall --write"} {
				if !strings.Contains(string(out.Stdout), want) {
					t.Fatalf("new session's %s with the loop file gone: %q, want %q", event, out.Stdout, want)
				}
			}
		})
	}
	// Where hook-loop was never set up (no log, no --config) nothing is refused.
	isolate(t)
	dir := t.TempDir()
	if out := run(t, dir, dir, "Stop", `{"session":"s"}`, false); !strings.HasPrefix(string(out.Stdout), "allow") {
		t.Fatalf("a project without hook-loop: %q", out.Stdout)
	}
}

// A forged, correctly sha256-chained line moving the session to done is not
// honoured through the hook path: the stop is still refused, log_tampered is
// recorded once, and under fail_closed the reason names the line.
func TestForgedDoneLineIsNotHonoured(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		name := "fail-open"
		extra := ""
		if failClosed {
			name, extra = "fail_closed", `, "fail_closed": true`
		}
		t.Run(name, func(t *testing.T) {
			isolate(t)
			root := project(t, extra)
			run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false)
			logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
			l := eventlog.Open(logPath, nil)
			var last string
			if err := l.View(func(tx *eventlog.Tx) error { last = tx.Head("s").LastHash; return nil }); err != nil {
				t.Fatal(err)
			}
			line, _ := json.Marshal(eventlog.Event{SchemaVersion: 1, SessionID: "s", EventType: eventlog.TypeStateTransitioned, State: "done",
				Actor: "hook-loop", Payload: map[string]any{"from": "a", "event": "go", "to": "done"}, PrevHash: last})
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(append(line, '\n'))
			f.Close()
			for i := 0; i < 2; i++ {
				out := run(t, root, root, "Stop", `{"session":"s"}`, false)
				if !strings.HasPrefix(string(out.Stdout), "block:") {
					t.Fatalf("stop %d after a forged done line: %q / %q", i, out.Stdout, out.Stderr)
				}
				if failClosed && !strings.Contains(string(out.Stdout), "log verify") {
					t.Errorf("fail_closed reason does not point at log verify: %q", out.Stdout)
				}
			}
			if n := count(logTypes(t, root), session.TypeLogTampered); n != 1 {
				t.Fatalf("log_tampered recorded %d times", n)
			}
		})
	}
}

// A lock held by another process gets an answer, in one line, per fail_closed.
func TestHeldLockAnswersPerFailClosed(t *testing.T) {
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) not installed (util-linux)")
	}
	t.Setenv(eventlog.LockTimeoutEnv, "200ms")
	for _, failClosed := range []bool{false, true} {
		// The stop is refused either way; the tool call as fail_closed says.
		extra, want := "", "allow"
		if failClosed {
			extra, want = `, "fail_closed": true`, "block"
		}
		t.Run(want, func(t *testing.T) {
			isolate(t)
			root := project(t, extra)
			run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			holder := exec.CommandContext(ctx, flockBin, filepath.Join(root, ".hook-loop", "events.jsonl.lock"), "sh", "-c", "echo held; sleep 60")
			stdout, _ := holder.StdoutPipe()
			if err := holder.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { holder.Process.Kill(); holder.Wait() }()
			if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ event, input, want string }{
				{"Stop", `{"session":"s"}`, "block"},
				{"PreToolUse", `{"session":"s","command":"ls"}`, want},
			} {
				done := make(chan []byte, 2)
				go func() {
					out := run(t, root, root, c.event, c.input, false)
					done <- out.Stdout
					done <- out.Stderr
				}()
				select {
				case out := <-done:
					stderr := <-done
					// plainAdapter prints the SystemMessage on stderr too; the
					// runner's own line is the last.
					lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
					if !strings.HasPrefix(string(out), c.want+":") || strings.Contains(string(out), "\n") || !strings.Contains(lines[len(lines)-1], "still held") {
						t.Fatalf("%s with the lock held: %q / %q", c.event, out, stderr)
					}
				case <-ctx.Done():
					t.Fatal("the hook is still waiting on the lock")
				}
			}
		})
	}
}

// A slow lifecycle executor in session A does not make session B's stop wait
// out the lock: executors' time under the lock is capped.
func TestSlowExecutorDoesNotStallOtherSessions(t *testing.T) {
	isolate(t)
	root := project(t, "")
	mark := filepath.Join(t.TempDir(), "started")
	cfg := filepath.Join(t.TempDir(), "hooks.json")
	os.WriteFile(cfg, []byte(`{"hooks":[{"name":"slow","command":["sh","-c","touch `+mark+`; sleep 8"],"on":["tool_requested"],"timeoutSeconds":20}]}`), 0o644)
	hook := func(input string) chan string {
		ch := make(chan string, 1)
		go func() {
			out := hook.New(hook.Deps{Lifecycle: lifecycle.ForHook}).Run(context.Background(), hook.Request{Adapter: plainAdapter{},
				Flags: hook.Flags{HooksConfig: cfg}, Stdin: strings.NewReader(input), Cwd: root})
			ch <- string(out.Stdout) + " / " + string(out.Stderr)
		}()
		return ch
	}
	<-hook(`{"event":"UserPromptSubmit","session":"b","prompt":"go"}`)
	a := hook(`{"event":"PreToolUse","session":"a","command":"ls"}`)
	guard := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		select {
		case <-guard:
			t.Fatal("the executor never started")
		case <-time.After(10 * time.Millisecond):
		}
	}
	select {
	case got := <-hook(`{"event":"Stop","session":"b"}`):
		if !strings.HasPrefix(got, "block:") || strings.Contains(got, "still held") {
			t.Fatalf("session b's stop behind a slow executor: %s", got)
		}
	case <-guard:
		t.Fatal("session b's stop is still waiting")
	}
	<-a
}

// A session joining a project-scoped loop pins its loop without resetting the
// loop: the record of the pin carries the project's state, not the new
// session's empty one (the fold takes a record's state as the loop's).
func TestJoiningSessionKeepsTheProjectState(t *testing.T) {
	isolate(t)
	root := project(t, `, "scope": "project"`)
	run(t, root, root, "UserPromptSubmit", `{"session":"s1","prompt":"go"}`, false)
	if out := run(t, root, root, "PostToolUse", `{"session":"s1","command":"make","exit":0}`, false); string(out.Stdout) != "allow:" && !strings.HasPrefix(string(out.Stdout), "steer") && !strings.HasPrefix(string(out.Stdout), "allow") {
		t.Fatalf("s1's make: %q / %q", out.Stdout, out.Stderr)
	}
	// s2's first event pins; its stop must see the loop done, not back in "a".
	if out := run(t, root, root, "Stop", `{"session":"s2"}`, false); strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("a second session's stop after the project loop reached done: %q / %q", out.Stdout, out.Stderr)
	}
}

// A pinned loop that was edited in hook-loop's store while the loop file also
// changed: the session is refused — never judged by the changed file.
func TestEditedPinRefuses(t *testing.T) {
	isolate(t)
	root := project(t, "")
	run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false)
	pins, _ := filepath.Glob(filepath.Join(os.Getenv(eventlog.StateDirEnv), "pins", "*.json"))
	if len(pins) != 1 {
		t.Fatalf("pins: %v", pins)
	}
	open := `{"loop": {"id": "t", "initial_state": "done", "states": ["done"], "events": [], "transitions": []}}`
	for _, p := range []string{pins[0], filepath.Join(root, "hook-loop.json")} {
		if err := os.WriteFile(p, []byte(open), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out := run(t, root, root, "Stop", `{"session":"s"}`, false); !strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("stop with the pin edited: %q / %q", out.Stdout, out.Stderr)
	}
}

// A loop file swapped for a FIFO or a link to /dev/zero does not hang the hook
// (a hook killed at the harness's timeout lets the agent proceed): the stop
// is refused at once, by the pinned loop.
func TestLoopFileSwappedForADeviceRefusesAtOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		swap func(path string) error
	}{
		{"fifo", func(p string) error { os.Remove(p); return syscall.Mkfifo(p, 0o644) }},
		{"dev-zero", func(p string) error { os.Remove(p); return os.Symlink("/dev/zero", p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			root := project(t, "")
			run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false)
			if err := c.swap(filepath.Join(root, "hook-loop.json")); err != nil {
				t.Skip(err)
			}
			done := make(chan harness.Output, 1)
			go func() { done <- run(t, root, root, "Stop", `{"session":"s"}`, false) }()
			select {
			case out := <-done:
				if !strings.HasPrefix(string(out.Stdout), "block:") {
					t.Fatalf("stop: %q / %q", out.Stdout, out.Stderr)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the hook hung on the swapped loop file")
			}
		})
	}
}
