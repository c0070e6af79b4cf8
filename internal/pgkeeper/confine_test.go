//go:build linux

package pgkeeper_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/pgkeeper"
)

// borrowEnv makes the test binary a process that asks the keeper for a
// connection once and says how it went ("loan", "none" or "refused: …").
const borrowEnv = "PGKEEPER_TEST_BORROW"

// prSetNoNewPrivs is PR_SET_NO_NEW_PRIVS (linux/prctl.h).
const prSetNoNewPrivs = 38

func init() {
	// In init, on the main thread, whose attributes /proc/<pid>/status shows:
	// what a sandbox (Codex's seccomp + Landlock) sets for the agent's commands.
	if os.Getenv(borrowEnv) != "" && os.Getenv("PGKEEPER_TEST_NNP") != "" {
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
			fmt.Println("prctl:", errno)
			os.Exit(1)
		}
	}
}

func borrowOnce(dir, key string) int {
	c := &pgkeeper.Client{Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	loan, err := c.Borrow(ctx, key)
	switch {
	case err == nil && loan != nil:
		fmt.Println("loan")
	case errors.Is(err, pgkeeper.ErrNone):
		fmt.Println("none")
	default:
		fmt.Println("refused:", err)
	}
	return 0
}

// TestSandboxedPeerRefused: the keeper lends nothing to a process sandboxed
// where it is not (here: no_new_privs, as Codex's sandbox sets for the agent's
// commands). Through a lent connection a sandboxed agent would reach the
// database its sandbox keeps it from, and write events of its own.
func TestSandboxedPeerRefused(t *testing.T) {
	e := setup(t, time.Minute)
	e.startKeeper()
	key := e.store().LendKey()
	run := func(nnp bool) string {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), borrowEnv+"="+e.c.Dir+"|"+key)
		if nnp {
			cmd.Env = append(cmd.Env, "PGKEEPER_TEST_NNP=1")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("borrower: %v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run(false); got != "loan" && got != "none" {
		t.Fatalf("an unconfined borrower: %q, want a loan (or none idle)", got)
	}
	if got := run(true); !strings.HasPrefix(got, "refused") {
		t.Fatalf("a borrower with no_new_privs: %q, want it refused", got)
	}
}

// giveEnv makes the test binary a hook that runs once on the store at the URL
// it names (its connection given to the keeper at Close) and exits at once.
const giveEnv = "PGKEEPER_TEST_GIVE"

// givePauseEnv makes that hook wait for a line on stdin before its Close.
const givePauseEnv = "PGKEEPER_TEST_GIVE_PAUSE"

func giveOnce(dir, url string) int {
	s, err := postgres.Open(url, postgres.Options{Project: "p", Lender: &pgkeeper.Client{Dir: dir}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if err := s.Update(func(tx *postgres.Tx) error {
		_, err := tx.Append(eventlog.Event{SessionID: "s", EventType: "given"})
		return err
	}); err != nil {
		fmt.Println(err)
		return 1
	}
	if os.Getenv(givePauseEnv) != "" {
		// Holds the connection until the test says go (a line on stdin).
		fmt.Println("updated")
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return 1
		}
	}
	if err := s.Close(); err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// TestGiveFromAHookThatExits: a hook gives its connection back as it ends and
// exits; the keeper keeps it. The keeper looks at who gives (a sandboxed
// process must not slip it a connection of its own making), and a hook that
// had already exited could no longer be looked at: every give was refused,
// and every hook connected afresh.
func TestGiveFromAHookThatExits(t *testing.T) {
	e := setup(t, time.Minute)
	e.startKeeper()
	key := e.store().LendKey()
	// Empty the keeper, so the helper connects by itself and gives its own.
	var held []*postgres.Loan
	for {
		l, err := e.c.Borrow(context.Background(), key)
		if err != nil {
			break
		}
		held = append(held, l)
	}
	defer func() {
		for _, l := range held {
			l.Conn.Close()
		}
	}()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), giveEnv+"="+e.c.Dir+"|"+e.srv.URL())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper hook: %v: %s", err, out)
	}
	e.eventually("the helper's connection kept", func() bool {
		l, err := e.c.Borrow(context.Background(), key)
		if err != nil {
			return false
		}
		held = append(held, l)
		return true
	})
}

// TestGiveReadAfterTheHookExited: a hook gives its connection back on the
// socket it borrowed on (looked at by the keeper when it connected) and exits
// without waiting for an answer; the keeper, busy (here: stopped) until after
// the hook is gone, still keeps the connection. A give needing the giver alive
// when the keeper reads it was refused here, and cost every hook a wait for
// the keeper's answer.
func TestGiveReadAfterTheHookExited(t *testing.T) {
	e := setup(t, time.Minute)
	e.startKeeper()
	key := e.store().LendKey()
	// Empty the keeper, so the helper connects by itself and gives its own.
	var held []*postgres.Loan
	for {
		l, err := e.c.Borrow(context.Background(), key)
		if err != nil {
			break
		}
		held = append(held, l)
	}
	defer func() {
		for _, l := range held {
			l.Conn.Close()
		}
	}()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), giveEnv+"="+e.c.Dir+"|"+e.srv.URL(), givePauseEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "updated\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper hook said %q: %v", line, err)
	}
	pid := e.keeperPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	_, _ = stdin.Write([]byte("go\n"))
	werr := cmd.Wait()
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if werr != nil {
		t.Fatalf("helper hook: %v", werr)
	}
	e.eventually("the exited helper's connection kept", func() bool {
		l, err := e.c.Borrow(context.Background(), key)
		if err != nil {
			return false
		}
		held = append(held, l)
		return true
	})
}
