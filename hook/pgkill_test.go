package hook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// flipLoop is a scope-project loop that changes state on every prompt, so
// every prompt's hook takes a transition (and runs the phase_changed
// lifecycle hook) inside its transaction.
const flipLoop = `{
  "loop": {
    "id": "flip",
    "initial_state": "a",
    "states": ["a", "b", "done"],
    "events": ["flip", "finish"],
    "transitions": [
      {"from": "a", "event": "flip", "to": "b"},
      {"from": "b", "event": "flip", "to": "a"},
      {"from": "b", "event": "finish", "to": "done"}
    ],
    "scope": "project",
    "fail_closed": true
  },
  "codex": {"event_map": [{"codex_event": "UserPromptSubmit", "emit": "flip"}]}
}`

// Hook processes killed with SIGKILL at random points — many of them while
// their transaction holds the loop's lock with events staged, during a slow
// lifecycle hook — round after round: afterwards nothing is torn. The chains
// and views verify (`log verify`), no event is stored twice, the transitions
// form one path (each state left once per visit: no two hooks moved the loop
// from the same state), every hook that answered is in the log, and hooks go
// on answering.
func TestPostgresHooksKilledMidTransaction(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(flipLoop), 0o644); err != nil {
		t.Fatal(err)
	}
	// The lifecycle hook runs inside the transaction (lock held, the
	// transition's events staged, nothing committed): it keeps it open a
	// while, so outside kills land there too, and a third of the time kills
	// its hook itself, right there. Each run notes itself first, so runs
	// without a committed transition count the hooks killed inside their
	// transaction.
	hooksDir := t.TempDir()
	decl, runs := filepath.Join(hooksDir, "hooks.json"), filepath.Join(hooksDir, "runs")
	script := `echo run >> ` + runs + `; n=$(od -An -N1 -tu1 /dev/urandom); if [ $((n % 3)) -eq 0 ]; then kill -9 $PPID; fi; sleep 0.05; echo null`
	js, _ := json.Marshal(map[string]any{"hooks": []any{map[string]any{"name": "slow", "command": []string{"sh", "-c", script}, "on": []string{"phase_changed"}}}})
	if err := os.WriteFile(decl, js, 0o644); err != nil {
		t.Fatal(err)
	}
	const project = "acme/killed"
	base := []string{"HOOK_LOOP_STORE=" + srv.URL(), "XDG_CONFIG_HOME=" + t.TempDir(), "HOOK_LOOP_PROJECT=" + project}
	env := append(append(os.Environ(), base...), "HOOK_LOOP_CONFIG="+decl)
	bin := hookLoopBin(t)

	const rounds, perRound = 12, 8
	rng := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	answered := map[string]bool{} // sessions with a hook that answered
	killed := 0
	for round := range rounds {
		var wg sync.WaitGroup
		for i := range perRound {
			sid := fmt.Sprintf("k%d", i)
			// Half the hooks are killed, after 0–400 ms: before, during or
			// after their transaction.
			kill := time.Duration(-1)
			if rng.IntN(2) == 0 {
				kill = time.Duration(rng.IntN(400)) * time.Millisecond
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				in, _ := json.Marshal(prompt(sid, dir))
				cmd := exec.Command(bin, "codex-hook")
				cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(in)
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				if kill >= 0 {
					timer := time.AfterFunc(kill, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
					defer timer.Stop()
				}
				err := cmd.Wait()
				mu.Lock()
				defer mu.Unlock()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					killed++
					return
				}
				if err != nil || errOut.Len() > 0 {
					t.Errorf("round %d, %s: %v\nstdout %s\nstderr %s", round, sid, err, out.String(), errOut.String())
					return
				}
				answered[sid] = true
			}()
		}
		wg.Wait()
	}
	t.Logf("%d of %d hooks killed", killed, rounds*perRound)
	if killed == 0 {
		t.Fatal("no hook was killed")
	}

	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	transitions := 0
	checkUntorn := func() {
		t.Helper()
		transitions = 0
		ids := map[string]int{}
		sessions := map[string]bool{}
		state := "a"
		if err := s.Scan(nil, func(line int, e eventlog.Event) error {
			if prev, ok := ids[e.EventID]; ok {
				t.Errorf("event %s stored twice: %d and %d", e.EventID, prev, line)
			}
			ids[e.EventID] = line
			sessions[e.SessionID] = true
			if e.EventType == eventlog.TypeStateTransitioned {
				from, to := fmt.Sprint(e.Payload["from"]), fmt.Sprint(e.Payload["to"])
				if from != state {
					t.Errorf("event %d: transition %s → %s while the loop was in %s: two hooks moved it from one state", line, from, to, state)
				}
				state = to
				transitions++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for sid := range answered {
			if !sessions[sid] {
				t.Errorf("session %s answered but is not in the log", sid)
			}
		}
		if err := s.View(func(tx *postgres.Tx[session.View, *session.View]) error {
			if p := tx.Project(); p.State != state {
				t.Errorf("project view in %q, the events end in %q", p.State, state)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "log", "verify")
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "\nok: ") {
			t.Fatalf("log verify: %v\n%s", err, out)
		}
	}
	checkUntorn()
	data, _ := os.ReadFile(runs)
	mid := strings.Count(string(data), "run\n") - transitions
	t.Logf("%d transitions committed; %d hooks killed inside their transaction with a transition staged", transitions, mid)
	if mid <= 0 {
		t.Errorf("no hook was killed inside its transaction (%d lifecycle runs, %d transitions): the test tested nothing", transitions+mid, transitions)
	}
	// Nothing killed left the loop locked: every session's next hook (without
	// the killing lifecycle hook) answers.
	for i := range perRound {
		if r := codexHook(t, dir, base, prompt(fmt.Sprintf("k%d", i), dir)); r.err != nil || r.errOut != "" {
			t.Fatalf("hook after the kills: %v\n%s", r.err, r.errOut)
		}
	}
	checkUntorn()
}

// A person's controls and the hooks move one scope-project loop through
// PostgreSQL at the same time: both take the loop's lock for their
// read-decide-append, so every flip is applied from the state the one before
// it left — none from a stale state — and each is recorded once.
func TestPostgresControlsAndHooksShareTheLoopsLock(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(flipLoop), 0o644); err != nil {
		t.Fatal(err)
	}
	const project = "acme/controls"
	env := []string{"HOOK_LOOP_STORE=" + srv.URL(), "XDG_CONFIG_HOME=" + t.TempDir(), "HOOK_LOOP_PROJECT=" + project}
	bin := hookLoopBin(t)
	const sessions = 4
	for i := range sessions {
		if r := codexHook(t, dir, env, prompt(fmt.Sprintf("c%d", i), dir)); r.err != nil || r.errOut != "" {
			t.Fatalf("start: %v %s", r.err, r.errOut)
		}
	}
	const each = 6 // hooks and controls per session
	var wg sync.WaitGroup
	errs := make(chan string, 2*sessions*each)
	for i := range sessions {
		sid := fmt.Sprintf("c%d", i)
		for range each {
			wg.Add(2)
			go func() {
				defer wg.Done()
				if r := codexHook(t, dir, env, prompt(sid, dir)); r.err != nil || r.errOut != "" {
					errs <- fmt.Sprintf("hook %s: %v %s", sid, r.err, r.errOut)
				}
			}()
			go func() {
				defer wg.Done()
				cmd := exec.Command(bin, "advance", "flip", "--session", sid, "--reason", "by hand")
				cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Sprintf("advance %s: %v %s", sid, err, out)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	state, transitions, byPerson := "a", 0, 0
	if err := s.Scan(nil, func(line int, e eventlog.Event) error {
		switch e.EventType {
		case eventlog.TypeStateTransitioned:
			if from := fmt.Sprint(e.Payload["from"]); from != state {
				t.Errorf("event %d: transition from %s while the loop was in %s", line, from, state)
			}
			state = fmt.Sprint(e.Payload["to"])
			transitions++
		case eventlog.TypeOperatorAdvanced:
			byPerson++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := sessions + 2*sessions*each; transitions != want || byPerson != sessions*each {
		t.Errorf("%d transitions (%d advances by the person), want %d (%d)", transitions, byPerson, want, sessions*each)
	}
	if r, err := s.Verify(); err != nil || !r.OK() {
		t.Fatalf("Verify = %+v, %v", r, err)
	}
}
