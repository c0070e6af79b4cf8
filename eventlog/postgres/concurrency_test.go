//go:build unix

package postgres

import (
	"context"
	"fmt"
	"github.com/hook-loop/hook-loop/project/identity"
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
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// checkout makes a directory that is a clone of remote, as far as project
// identity goes.
func checkout(t *testing.T, remote string) string {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = " + remote + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// transition is the engine's read-decide-append in miniature: read the
// project-scope state and move it on by one, if it is still what was read.
func transition(tx *testTx, session string) error {
	p := tx.Project()
	n := p.Transitions
	from := fmt.Sprintf("s%d", n)
	if p.State != "" && p.State != from {
		return fmt.Errorf("project state %q after %d transitions", p.State, n)
	}
	to := fmt.Sprintf("s%d", n+1)
	if _, err := tx.Append(eventlog.Event{SessionID: session, EventType: eventlog.TypeHookFired, State: from}); err != nil {
		return err
	}
	_, err := tx.Append(eventlog.Event{SessionID: session, EventType: eventlog.TypeStateTransitioned, State: from,
		Payload: map[string]any{"from": from, "event": "next", "to": to}})
	return err
}

// checkTransitions fails unless the log holds exactly want transitions,
// s0→s1→…, each state left once.
func checkTransitions(t *testing.T, s *testStore, want int) {
	t.Helper()
	seen := map[string]int{}
	n := 0
	if err := s.Scan(nil, func(line int, e eventlog.Event) error {
		if e.EventType != eventlog.TypeStateTransitioned {
			return nil
		}
		from, _ := e.Payload["from"].(string)
		if prev, dup := seen[from]; dup {
			t.Errorf("two transitions from %s: events %d and %d", from, prev, line)
		}
		seen[from] = line
		if want := fmt.Sprintf("s%d", n); from != want {
			t.Errorf("transition %d is from %s, want %s", n+1, from, want)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want >= 0 && n != want {
		t.Errorf("%d transitions, want %d", n, want)
	}
	r, err := s.Verify()
	if err != nil || !r.OK() {
		t.Fatalf("Verify = %+v, %v", r, err)
	}
}

func TestConcurrentUpdatesFromTwoCheckouts(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	noEnv := func(string) string { return "" }
	dirs := []string{
		checkout(t, "git@github.com:acme/widget.git"),
		checkout(t, "https://ci:token@github.com/acme/widget"),
	}
	ids := []string{identity.Of(dirs[0], noEnv), identity.Of(dirs[1], noEnv)}
	if ids[0] != ids[1] || ids[0] != "github.com/acme/widget" {
		t.Fatalf("checkouts of one repository are projects %q and %q", ids[0], ids[1])
	}
	const hooks = 64
	var wg sync.WaitGroup
	errs := make(chan error, hooks)
	for i := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open[session.View](srv.URL(), Options{Project: identity.Of(dirs[i%2], noEnv)})
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			session := fmt.Sprintf("checkout%d-hook%d", i%2, i)
			errs <- s.Update(func(tx *testTx) error { return transition(tx, session) })
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	s := openStore(t, srv.URL(), ids[0])
	checkTransitions(t, s, hooks)
	if err := s.View(func(tx *testTx) error {
		if p := tx.Project(); p.Events != 2*hooks || p.State != fmt.Sprintf("s%d", hooks) {
			t.Errorf("project view %+v", p)
		}
		if n := len(tx.SessionIDs()); n != hooks {
			t.Errorf("%d sessions, want %d", n, hooks)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// childMain is a hook process for TestKill9MidTransaction: transitions in a loop,
// pausing inside each transaction so a kill lands there.
func childMain() int {
	if os.Getenv(childOnceEnv) != "" {
		return hookOnce()
	}
	s, err := Open[session.View](os.Getenv(childEnv), Options{Project: "kill9"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	session := fmt.Sprint("child-", os.Getpid())
	for {
		err := s.Update(func(tx *testTx) error {
			if err := transition(tx, session); err != nil {
				return err
			}
			time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}

func TestKill9MidTransaction(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for round := range 6 {
		var cmds []*exec.Cmd
		for range 4 {
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+srv.URL())
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		time.Sleep(time.Duration(150+rand.IntN(250)) * time.Millisecond)
		for _, cmd := range cmds {
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, cmd := range cmds {
			_ = cmd.Wait()
			if s := cmd.Stderr.(*strings.Builder).String(); s != "" {
				t.Errorf("round %d: child said: %s", round, s)
			}
		}
	}
	s := openStore(t, srv.URL(), "kill9")
	checkTransitions(t, s, -1)
	var hooks, transitions int
	if err := s.Scan(nil, func(_ int, e eventlog.Event) error {
		switch e.EventType {
		case eventlog.TypeHookFired:
			hooks++
		case eventlog.TypeStateTransitioned:
			transitions++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if hooks != transitions || transitions == 0 {
		t.Fatalf("%d hook_fired and %d transitions: a transaction was torn (or none ran)", hooks, transitions)
	}
	t.Logf("%d whole transactions survived 24 kills", transitions)
}

func TestServerStoppedMidRun(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	// The server trusts loopback, so this password is never needed; it must never
	// be shown either.
	url := strings.Replace(srv.URL(), "hookloop@", "hookloop:s3cret-pw@", 1)
	s := openStore(t, url, "restart")
	step := func() error { return s.Update(func(tx *testTx) error { return transition(tx, "one") }) }
	if err := step(); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for range 2 {
		start := time.Now()
		err := step()
		took := time.Since(start)
		if err == nil {
			t.Fatal("Update with the server down succeeded")
		}
		if msg := err.Error(); !strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "s3cret") || strings.Count(msg, "\n") > 0 {
			t.Errorf("error should be one line naming the host and never the password: %s", msg)
		}
		if took > Timeout+2*time.Second {
			t.Errorf("error after %s, past the %s bound", took, Timeout)
		}
	}
	srv.Restart()
	if err := step(); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	checkTransitions(t, s, 2)
}

func TestLockWaitIsBounded(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	holder := openStore(t, srv.URL(), "locked")
	s := openStore(t, srv.URL(), "locked")
	held := make(chan struct{})
	release := make(chan struct{})
	go func() {
		_ = holder.Update(func(tx *testTx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	start := time.Now()
	err := s.Update(func(tx *testTx) error { return transition(tx, "waiting") })
	t.Logf("lock wait gave up after %s", time.Since(start))
	close(release)
	if err == nil || !strings.Contains(err.Error(), "another hook held the loop's lock") {
		t.Fatalf("Update while another holds the lock = %v", err)
	}
	// The wait ended the transaction, not the connection's usefulness.
	if err := s.Update(func(tx *testTx) error { return transition(tx, "waiting") }); err != nil {
		t.Fatal(err)
	}
	checkTransitions(t, s, 1)
}

// The bounds are on the store's waits, not on the decision: the engine runs
// lifecycle hooks inside Update under their own timeouts.
func TestSlowDecisionStillCommits(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	s := openStore(t, srv.URL(), "slow")
	if err := s.Update(func(tx *testTx) error {
		time.Sleep(Timeout + time.Second)
		tx.Session("slow")
		return transition(tx, "slow")
	}); err != nil {
		t.Fatal(err)
	}
	checkTransitions(t, s, 1)
}

// A connection dropped inside the transaction stores none of it; the next
// Update reconnects and carries the chain on.
func TestConnectionDroppedMidTransaction(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	s := openStore(t, srv.URL(), "dropped")
	killer := openStore(t, srv.URL(), "other")
	step := func(tx *testTx) error { return transition(tx, "one") }
	if err := s.Update(step); err != nil {
		t.Fatal(err)
	}
	err := s.Update(func(tx *testTx) error {
		if err := step(tx); err != nil {
			return err
		}
		pid := s.conn.PgConn().PID()
		return killer.query(func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid)
			return err
		})
	})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("Update whose connection was dropped = %v", err)
	}
	if err := s.Update(step); err != nil {
		t.Fatalf("after the drop: %v", err)
	}
	checkTransitions(t, s, 2)
}
