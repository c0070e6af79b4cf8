//go:build linux

package pgkeeper_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/pgkeeper"
	"github.com/hook-loop/hook-loop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// The test binary stands in for hook-loop: as the keeper (pgkeeper.Arg) and as
// a hook that stops mid-transaction (helperEnv).
const helperEnv = "PGKEEPER_TEST_HOOK"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == pgkeeper.Arg {
		os.Exit(pgkeeper.Main(os.Args[2:], os.Getenv))
	}
	if url := os.Getenv(helperEnv); url != "" {
		os.Exit(stuckHook(url))
	}
	if v := os.Getenv(giveEnv); v != "" {
		dir, url, _ := strings.Cut(v, "|")
		os.Exit(giveOnce(dir, url))
	}
	if v := os.Getenv(borrowEnv); v != "" {
		dir, key, _ := strings.Cut(v, "|")
		os.Exit(borrowOnce(dir, key))
	}
	os.Exit(m.Run())
}

// stuckHook appends an event under the loop's lock, says so on stdout, and
// waits inside the transaction to be killed.
func stuckHook(url string) int {
	c := client(os.Getenv("PGKEEPER_TEST_DIR"), time.Minute)
	s, err := postgres.Open(url, postgres.Options{Project: "p", Lender: c})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = s.Update(func(tx *postgres.Tx) error {
		if _, err := tx.Append(eventlog.Event{SessionID: "s", EventType: "torn"}); err != nil {
			return err
		}
		fmt.Println("in transaction")
		time.Sleep(time.Hour)
		return nil
	})
	fmt.Fprintln(os.Stderr, "stuck hook:", err)
	return 1
}

func client(stateDir string, idle time.Duration) *pgkeeper.Client {
	exe, _ := os.Executable()
	return &pgkeeper.Client{Dir: filepath.Join(stateDir, "pgkeeper"), Exe: exe, Idle: idle}
}

type env struct {
	t     *testing.T
	srv   *pgtest.Server
	state string
	c     *pgkeeper.Client
	admin *pgx.Conn
}

func setup(t *testing.T, idle time.Duration) *env {
	srv := pgtest.Start(t, pgtest.Options{})
	state := t.TempDir()
	t.Setenv(eventlog.StateDirEnv, state)
	admin, err := pgx.Connect(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, state: state, c: client(state, idle), admin: admin}
	t.Cleanup(func() {
		if pid := e.keeperPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		admin.Close(context.Background())
	})
	return e
}

func (e *env) store() *postgres.Store {
	s, err := postgres.Open(e.srv.URL(), postgres.Options{Project: "p", Lender: e.c})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// hook runs one hook's work: an Update appending an event, then Close.
func (e *env) hook(s *postgres.Store, typ string) {
	e.t.Helper()
	if err := s.Update(func(tx *postgres.Tx) error {
		_, err := tx.Append(eventlog.Event{SessionID: "s", EventType: typ})
		return err
	}); err != nil {
		e.t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		e.t.Fatal(err)
	}
}

// socket is the keeper's socket of the store's database.
func (e *env) socket() string {
	s := e.store()
	return filepath.Join(e.c.Dir, s.LendKey()[:16]+".sock")
}

func (e *env) keeperPID() int {
	m, _ := filepath.Glob(filepath.Join(e.c.Dir, "*.sock.lock"))
	for _, p := range m {
		b, _ := os.ReadFile(p)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
	}
	return 0
}

// eventually polls cond: these tests wait on other processes (the keeper
// starting, the server noticing a closed connection), never on a duration.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	for i := 0; i < 1000; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("never happened: %s", what)
}

// backends lists the pids of the server's hook-loop connections.
func (e *env) backends() []int {
	rows, err := e.admin.Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE application_name = 'hook-loop' ORDER BY pid`)
	if err != nil {
		e.t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]int, len(pids))
	for i, p := range pids {
		out[i] = int(p)
	}
	return out
}

func (e *env) events() []string {
	var types []string
	s := e.store()
	defer s.Close()
	if err := s.ScanRaw(nil, func(_ int, _ []byte, ev eventlog.Event) error {
		types = append(types, ev.EventType)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	r, err := s.Verify()
	if err != nil || !r.OK() {
		e.t.Fatalf("log does not verify: %v %+v", err, r)
	}
	return types
}

// startKeeper runs two hooks: the first starts the keeper, the second (at
// the latest) gives it a connection. It returns the backends the keeper holds.
func (e *env) startKeeper() []int {
	e.hook(e.store(), "first") // no keeper yet: starts one, connects directly
	e.eventually("keeper listening", func() bool { _, err := os.Stat(e.socket()); return err == nil })
	e.hook(e.store(), "second") // gives its connection to the keeper
	var held []int
	e.eventually("keeper holding a connection", func() bool {
		held = e.backends()
		return len(held) > 0
	})
	return held
}

func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// A hook borrows the connection the previous hook gave back: no new backend.
func TestReuse(t *testing.T) {
	e := setup(t, time.Minute)
	held := e.startKeeper()
	// A give is not acknowledged (a hook does not wait for the keeper), so on
	// a loaded machine a hook may ask before the keeper has taken the last
	// one's connection back, and connect by itself: most hooks must reuse.
	reused := 0
	for i := 0; i < 5; i++ {
		e.hook(e.store(), fmt.Sprintf("reuse-%d", i))
		got := e.backends()
		if subset(got, held) {
			reused++
		}
		held = got
	}
	if reused < 3 {
		t.Fatalf("%d of 5 hooks reused the keeper's connection", reused)
	}
	if got := e.events(); len(got) != 7 {
		t.Fatalf("events %v, want 7", got)
	}
}

// A connection given back inside a transaction is closed, not kept.
func TestDirtyGiveDiscarded(t *testing.T) {
	e := setup(t, time.Minute)
	e.startKeeper()
	s := e.store()
	loan, err := e.c.Borrow(context.Background(), s.LendKey())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loan.Conn.Write([]byte{'Q', 0, 0, 0, 10, 'B', 'E', 'G', 'I', 'N', 0}); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(loan.Conn)
	for { // CommandComplete, ReadyForQuery('T')
		typ, _ := r.ReadByte()
		var n [4]byte
		if _, err := r.Read(n[:]); err != nil {
			t.Fatal(err)
		}
		body := make([]byte, int(n[0])<<24|int(n[1])<<16|int(n[2])<<8|int(n[3])-4)
		if _, err := r.Read(body); err != nil && len(body) > 0 {
			t.Fatal(err)
		}
		if typ == 'Z' {
			if body[0] != 'T' {
				t.Fatalf("status %q after BEGIN", body[0])
			}
			break
		}
	}
	var pid int32
	if err := e.admin.QueryRow(context.Background(), `SELECT pid FROM pg_stat_activity WHERE state = 'idle in transaction'`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	e.c.Give(s.LendKey(), loan)
	e.eventually("dirty connection closed", func() bool { return !slices.Contains(e.backends(), int(pid)) })
	e.hook(e.store(), "after")
	if got := e.events(); len(got) != 3 {
		t.Fatalf("events %v", got)
	}
}

// A killed keeper (and a stopped one) costs hooks nothing but the loan: they
// connect by themselves, and the next keeper starts.
func TestKeeperKilledFallback(t *testing.T) {
	e := setup(t, time.Minute)
	e.startKeeper()
	pid := e.keeperPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	e.hook(e.store(), "keeper-stopped")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(pid, syscall.SIGCONT)
	e.eventually("keeper gone", func() bool { return syscall.Kill(pid, 0) != nil || isZombie(pid) })
	// Stale socket: a hook connects directly and starts a new keeper. Right
	// after the kill a hook may still reach the dying keeper's socket (its
	// loan fails and it connects directly all the same), so hooks go on until
	// one has started the next keeper.
	killed := 0
	e.eventually("a new keeper", func() bool {
		e.hook(e.store(), "keeper-killed")
		killed++
		p := e.keeperPID()
		return p > 0 && p != pid
	})
	e.eventually("new keeper listening", func() bool {
		_, err := e.c.Borrow(context.Background(), e.store().LendKey())
		return err == pgkeeper.ErrNone
	})
	e.hook(e.store(), "gives")
	e.hook(e.store(), "borrows")
	if got := e.events(); len(got) != 5+killed {
		t.Fatalf("events %v, want %d", got, 5+killed)
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

// A hook killed with a borrowed connection inside its transaction (the loop's
// lock held) holds the connection's only descriptor: the server sees it close
// and rolls back — nothing torn, the lock free, the keeper not holding it.
func TestHookKilledMidTransaction(t *testing.T) {
	e := setup(t, time.Minute)
	held := e.startKeeper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+e.srv.URL(), "PGKEEPER_TEST_DIR="+e.state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "in transaction\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("hook said %q: %v", line, err)
	}
	var holder int32
	if err := e.admin.QueryRow(context.Background(), `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted`).Scan(&holder); err != nil {
		t.Fatal(err)
	}
	pid := int(holder)
	if !slices.Contains(held, pid) {
		t.Fatalf("lock held by backend %d, want a lent one of %v", holder, held)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	e.eventually("lent connection closed by the server", func() bool { return !slices.Contains(e.backends(), pid) })
	e.hook(e.store(), "after")
	if got := e.events(); !slices.Equal(got, []string{"first", "second", "after"}) {
		t.Fatalf("events %v", got)
	}
}

// A keeper with no request for its idle period exits, closing what it holds
// and removing its socket.
func TestIdleExit(t *testing.T) {
	e := setup(t, 300*time.Millisecond)
	e.startKeeper()
	pid := e.keeperPID()
	e.eventually("keeper exited", func() bool { return syscall.Kill(pid, 0) != nil || isZombie(pid) })
	e.eventually("its connection closed", func() bool { return len(e.backends()) == 0 })
	if _, err := os.Stat(e.socket()); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// A socket directory others can enter is not trusted: no borrow, no keeper.
func TestSharedDirRefused(t *testing.T) {
	e := setup(t, time.Minute)
	if err := os.MkdirAll(e.c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(e.c.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Borrow(context.Background(), e.store().LendKey()); err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("borrow from a shared dir: %v", err)
	}
	e.hook(e.store(), "direct")
	if pid := e.keeperPID(); pid != 0 {
		t.Fatalf("keeper %d started in a shared dir", pid)
	}
}

// An impostor at the keeper's socket that lends something other than a
// database connection (here a pipe) is refused: the hook connects directly.
func TestImpostorLendRefused(t *testing.T) {
	e := setup(t, time.Minute)
	if err := os.MkdirAll(e.c.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: e.socket(), Net: "unixpacket"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			uc, err := l.AcceptUnix()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			n, _ := uc.Read(buf)
			if strings.Contains(string(buf[:n]), `"borrow"`) {
				r, w, _ := os.Pipe()
				_, _, _ = uc.WriteMsgUnix([]byte(`{"ok":true,"meta":{"pid":1,"secret_key":"AAAA","params":{}}}`), syscall.UnixRights(int(r.Fd())), nil)
				r.Close()
				w.Close()
			}
			uc.Close()
		}
	}()
	if _, err := e.c.Borrow(context.Background(), e.store().LendKey()); err == nil {
		t.Fatal("borrowed a pipe as a database connection")
	}
	e.hook(e.store(), "direct")
	if got := e.events(); !slices.Equal(got, []string{"direct"}) {
		t.Fatalf("events %v", got)
	}
}
