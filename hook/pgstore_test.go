package hook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// projectLoop is a scope-project loop: every session of every checkout moves
// one shared state; kickoff comes from a prompt, plan_ready from writing PLAN.md.
const projectLoop = `{
  "loop": {
    "id": "shared",
    "initial_state": "backlog",
    "states": ["backlog", "planning", "executing", "done"],
    "events": ["kickoff", "plan_ready", "finish"],
    "transitions": [
      {"from": "backlog", "event": "kickoff", "to": "planning"},
      {"from": "planning", "event": "plan_ready", "to": "executing"},
      {"from": "executing", "event": "finish", "to": "done"}
    ],
    "scope": "project",
    "fail_closed": true
  },
  "codex": {"event_map": [
    {"codex_event": "UserPromptSubmit", "emit": "kickoff"},
    {"codex_event": "PostToolUse", "when": {"path_match": "PLAN\\.md$"}, "emit": "plan_ready"}
  ]}
}`

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// hookLoopBin builds the real hook-loop binary once per test run.
func hookLoopBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hook-loop-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "hook-loop")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/hook-loop/hook-loop").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// checkout is a directory that is a clone of remote as far as the project's
// identity goes, with the loop at its root.
func checkout(t *testing.T, remote string) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[remote \"origin\"]\n\turl = " + remote + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(projectLoop), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

type hookResult struct {
	out, errOut string
	err         error
	took        time.Duration
}

// codexHook runs `hook-loop codex-hook` in dir on payload.
func codexHook(t testing.TB, dir string, env []string, payload map[string]any) hookResult {
	in, _ := json.Marshal(payload)
	cmd := exec.Command(hookLoopBin(t), "codex-hook")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	return hookResult{out.String(), errOut.String(), err, time.Since(start)}
}

func prompt(sid, cwd string) map[string]any {
	return map[string]any{"session_id": sid, "turn_id": "t", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "go", "model": "m", "transcript_path": nil}
}

func wrotePlan(sid, cwd string) map[string]any {
	return map[string]any{"session_id": sid, "turn_id": "t", "cwd": cwd, "hook_event_name": "PostToolUse", "model": "m", "transcript_path": nil,
		"tool_name": "apply_patch", "tool_use_id": "u", "tool_input": map[string]any{"command": "*** Begin Patch\n*** Add File: PLAN.md\n+1. do it\n*** End Patch\n"},
		"tool_response": "ok"}
}

func bashCall(sid, cwd string) map[string]any {
	return map[string]any{"session_id": sid, "turn_id": "t", "cwd": cwd, "hook_event_name": "PreToolUse", "model": "m", "transcript_path": nil,
		"tool_name": "Bash", "tool_use_id": "u", "tool_input": map[string]any{"command": "ls"}}
}

// 64 hook processes from two checkouts of one repository (standing in for two
// machines) on one scope-project loop through PostgreSQL: every hook is
// answered and recorded, each state is left once, and the chains verify.
func TestPostgresHooksFromTwoCheckouts(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	a := checkout(t, "git@github.com:acme/widget.git")
	b := checkout(t, "https://github.com/acme/widget")
	env := []string{"HOOK_LOOP_STORE=" + srv.URL(), "XDG_CONFIG_HOME=" + t.TempDir()}
	hookLoopBin(t)

	const n = 64
	results := make([]hookResult, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4*runtime.NumCPU())
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			dir := []string{a, b}[i%2]
			sid := fmt.Sprintf("s%02d", i)
			p := prompt(sid, dir)
			if i%4 >= 2 {
				p = wrotePlan(sid, dir)
			}
			results[i] = codexHook(t, dir, env, p)
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil || strings.Contains(r.errOut, "event store") {
			t.Errorf("hook %d: %v\nstdout %s\nstderr %s", i, r.err, r.out, r.errOut)
		}
	}
	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: "github.com/acme/widget"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	left := map[string]int{}
	sessions := map[string]bool{}
	if err := s.Scan(nil, func(_ int, e eventlog.Event) error {
		sessions[e.SessionID] = true
		if e.EventType == eventlog.TypeStateTransitioned {
			left[fmt.Sprint(e.Payload["from"])]++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(sessions) != n {
		t.Errorf("%d sessions in the log, want %d: hooks were lost", len(sessions), n)
	}
	if left["backlog"] != 1 || left["planning"] > 1 {
		t.Errorf("transitions by state left: %v; want backlog once and planning at most once", left)
	}
	r, err := s.Verify()
	if err != nil || !r.OK() || !r.Keyed {
		t.Fatalf("Verify = %+v, %v", r, err)
	}
	// status of either checkout shows the shared loop and every session.
	cmd := exec.Command(hookLoopBin(t), "status")
	cmd.Dir, cmd.Env = b, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "s00") || !strings.Contains(string(out), "s63") {
		t.Errorf("status from the second checkout: %v\n%s", err, out)
	}
}

// The server stopped mid-run: a fail_closed loop refuses, within the store's
// bound, with one line naming the host and never the password; once it is
// back, hooks go on where they were.
func TestPostgresServerDownFailsClosedThenResumes(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dir := checkout(t, "https://github.com/acme/down")
	url := strings.Replace(srv.URL(), "hookloop@", "hookloop:s3cret-pw@", 1)
	env := []string{"HOOK_LOOP_STORE=" + url, "XDG_CONFIG_HOME=" + t.TempDir()}
	if r := codexHook(t, dir, env, prompt("one", dir)); r.err != nil || r.errOut != "" {
		t.Fatalf("first hook: %v %s", r.err, r.errOut)
	}
	srv.Stop()
	r := codexHook(t, dir, env, bashCall("one", dir))
	if !strings.Contains(r.out, `"decision":"block"`) {
		t.Errorf("fail_closed loop with the database down did not refuse the tool call: %q (stderr %q)", r.out, r.errOut)
	}
	if !strings.Contains(r.errOut, "127.0.0.1") || strings.Contains(r.errOut+r.out, "s3cret") || strings.Count(strings.TrimSpace(r.errOut), "\n") > 0 {
		t.Errorf("stderr should be one line naming the host, never the password: %q", r.errOut)
	}
	if r.took > postgres.Timeout+3*time.Second {
		t.Errorf("answered after %s, past the %s bound", r.took, postgres.Timeout)
	}
	srv.Restart()
	if r := codexHook(t, dir, env, wrotePlan("one", dir)); r.err != nil || r.errOut != "" {
		t.Fatalf("after restart: %v %s", r.err, r.errOut)
	}
	s, _ := postgres.Open[session.View](url, postgres.Options{Project: "github.com/acme/down"})
	defer s.Close()
	if err := s.View(func(tx *postgres.Tx[session.View, *session.View]) error {
		if p := tx.Project(); p.State != "executing" {
			t.Errorf("project state %q after restart, want executing", p.State)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
