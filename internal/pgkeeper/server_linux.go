package pgkeeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/usersock"
	"github.com/jackc/pgx/v5/pgconn"
)

// Main runs the keeper: args are [SOCKET, KEY] after Arg. It returns the exit
// code; a keeper that finds another one running exits 0 at once.
func Main(args []string, getenv func(string) string) int {
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: hook-loop %s SOCKET KEY\n", Arg)
		return 2
	}
	idle := usersock.Idle(getenv, IdleEnv, DefaultIdle)
	// One P: a request is one goroutine's short work, and with more the
	// accept loop's new goroutine woke another thread to run it, a hand-off
	// every request waited on when the machine is busy.
	runtime.GOMAXPROCS(1)
	if err := Serve(args[0], args[1], idle); err != nil {
		fmt.Fprintln(os.Stderr, "hook-loop keeper:", err)
		return 1
	}
	return 0
}

// keeper is one running keeper: the connections it holds for one key.
type keeper struct {
	key string
	cfg *pgconn.Config // for pgconn.Construct; never used to connect

	mu       sync.Mutex
	idle     []*pgconn.PgConn
	prepared map[uint32]map[string]string // backend pid → what the keeper prepared there (vouch)
	taking   int                          // connections given back and being checked
	sessions map[*net.UnixConn]bool       // borrows' sockets, waiting for their give (giveBack)
	changed  chan struct{}                // closed (and replaced) when idle, taking or sessions change
	last     time.Time                    // the last request
}

// Serve listens on path for the connections of key until no request came for
// idle, or path is no longer its socket (removed or replaced).
func Serve(path, key string, idle time.Duration) error {
	l, err := usersock.Listen("unixpacket", path)
	if errors.Is(err, usersock.ErrHeld) {
		return nil // another keeper holds the socket
	}
	if err != nil {
		return err
	}
	cfg, err := pgconn.ParseConfig("host=/nonexistent sslmode=disable")
	if err != nil {
		l.Close()
		return err
	}
	k := &keeper{key: key, cfg: cfg, last: time.Now(), sessions: map[*net.UnixConn]bool{}, changed: make(chan struct{})}
	done := make(chan struct{})
	go l.CloseWhen(done, min(time.Second, idle/4+time.Millisecond), func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		return time.Since(k.last) > idle
	})
	for {
		uc, err := l.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				break
			}
			continue
		}
		go k.handle(uc)
	}
	close(done)
	l.Close()
	k.mu.Lock()
	for _, pc := range k.idle {
		closeConn(pc)
	}
	k.idle = nil
	k.mu.Unlock()
	return nil
}

// handle answers one request.
func (k *keeper) handle(uc *net.UnixConn) {
	defer uc.Close()
	if !serves(uc) {
		return
	}
	_ = uc.SetDeadline(time.Now().Add(2 * time.Second))
	var req request
	conn, err := readMsg(uc, jsonInto(&req))
	if err != nil {
		return
	}
	k.mu.Lock()
	k.last = time.Now()
	k.mu.Unlock()
	if req.Key != k.key {
		if conn != nil {
			terminate(conn)
		}
		return
	}
	switch req.Op {
	case "borrow":
		if conn != nil {
			terminate(conn)
		}
		if k.lend(uc) {
			k.giveBack(uc)
		}
	case "give":
		if conn == nil || req.Meta == nil {
			if conn != nil {
				terminate(conn)
			}
			return
		}
		// The giver waits for this word (so it is still there to be looked
		// at); the check of the connection itself comes after.
		msg, _ := json.Marshal(reply{OK: true})
		_, _ = uc.Write(msg)
		k.take(conn, req.Meta)
	}
}

// lendWait bounds how long a borrow waits for a connection being given back.
var lendWait = 30 * time.Millisecond // a var for the tests

// giveBack waits on a borrow's socket for the borrower's give (Client.keep):
// the borrower was looked at when it connected, so its give needs no answer,
// and it may have exited by the time it is read. It ends when the borrower
// closes the socket (it gave nothing, or died).
func (k *keeper) giveBack(uc *net.UnixConn) {
	_ = uc.SetDeadline(time.Time{})
	k.mu.Lock()
	k.sessions[uc] = true
	k.mu.Unlock()
	var req request
	conn, err := readMsg(uc, jsonInto(&req))
	k.mu.Lock()
	if conn != nil && err == nil {
		k.taking++ // before the session goes, so a lend waiting on it waits on
	}
	delete(k.sessions, uc)
	k.signal()
	k.mu.Unlock()
	if conn != nil && err == nil {
		defer func() {
			k.mu.Lock()
			k.taking--
			k.signal()
			k.mu.Unlock()
		}()
	}
	if conn == nil {
		return
	}
	if err != nil || req.Op != "give" || req.Key != k.key || req.Meta == nil {
		terminate(conn)
		return
	}
	k.mu.Lock()
	k.last = time.Now()
	k.mu.Unlock()
	k.take(conn, req.Meta)
}

// lend sends an idle connection (or a refusal) and gives up its own copy. It
// reports whether the borrower had its answer.
func (k *keeper) lend(uc *net.UnixConn) bool {
	// A hook right behind the previous one asks while that one's connection
	// is still being checked (a round trip), or before the keeper has even
	// read the give (the giver does not wait for it): worth a short wait.
	wait := time.NewTimer(lendWait)
	defer wait.Stop()
	expired := false
	for {
		k.mu.Lock()
		var pc *pgconn.PgConn
		if n := len(k.idle); n > 0 {
			pc, k.idle = k.idle[n-1], k.idle[:n-1]
		}
		coming := k.taking > 0 || k.giveInFlight()
		changed := k.changed
		k.mu.Unlock()
		if pc == nil && coming && !expired {
			select {
			case <-changed:
			case <-wait.C:
				expired = true
			}
			continue
		}
		if pc == nil {
			msg, _ := json.Marshal(reply{OK: false})
			_, err := uc.Write(msg)
			return err == nil
		}
		hc, err := pc.Hijack()
		if err != nil {
			continue
		}
		if !quiet(hc.Conn) {
			hc.Conn.Close() // the server said something (it ended the session?): not lendable
			continue
		}
		f, err := hc.Conn.(interface{ File() (*os.File, error) }).File()
		if err != nil {
			hc.Conn.Close()
			continue
		}
		k.mu.Lock()
		var names []string
		for name := range k.prepared[hc.PID] {
			names = append(names, name)
		}
		k.mu.Unlock()
		msg, _ := json.Marshal(reply{OK: true, Meta: &meta{PID: hc.PID, SecretKey: hc.SecretKey, Params: hc.ParameterStatuses, Prepared: names}})
		_, _, err = uc.WriteMsgUnix(msg, syscall.UnixRights(int(f.Fd())), nil)
		f.Close()
		if err != nil {
			terminate(hc.Conn)
			return false
		}
		// The borrower holds the only copy now.
		hc.Conn.Close()
		return true
	}
}

// resetSQL is DISCARD ALL but for DEALLOCATE ALL and DISCARD PLANS, so the
// statements the keeper prepared (and their plans) outlive the loan; it ends
// listing the prepared statements, for vouch. One query string, one implicit
// transaction: on a connection given back inside a transaction it runs in
// that transaction, which take sees (and closes the connection); in a failed
// one it fails. Plans the server caches for the prepared statements are the
// one thing a borrower can leave behind (built under settings of its own):
// they can make a hook slower, not read or write anything else, and a
// borrower is a process of this user outside any sandbox (serves),
// which can reach the database by itself anyway.
const resetSQL = `CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; SELECT pg_catalog.pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES; ` + listPreparedSQL

const listPreparedSQL = `SELECT name, statement, prepare_time::text FROM pg_catalog.pg_prepared_statements`

// vouch reports whether the prepared statements of backend pid (rows of
// listPreparedSQL) are exactly the ones the keeper prepared there: same
// names, texts and prepare times. A borrower that put another statement
// under one of the names shows its text; one that prepared the same text
// again, under settings of its own, a later time.
func (k *keeper) vouch(pid uint32, rows [][][]byte) bool {
	k.mu.Lock()
	want := k.prepared[pid]
	k.mu.Unlock()
	if len(want) == 0 || len(rows) != len(want) {
		return false
	}
	for _, r := range rows {
		if len(r) != 3 || want[string(r[0])] != string(r[1])+"\x00"+string(r[2]) {
			return false
		}
	}
	return true
}

// prepare replaces the prepared statements of pc with the store's
// (postgres.Statements) and records them for vouch.
func (k *keeper) prepare(ctx context.Context, pc *pgconn.PgConn) error {
	k.forget(pc.PID())
	if _, err := pc.Exec(ctx, "DEALLOCATE ALL").ReadAll(); err != nil {
		return err
	}
	for name, sql := range postgres.Statements() {
		if _, err := pc.Prepare(ctx, name, sql, nil); err != nil {
			return err
		}
	}
	res, err := pc.Exec(ctx, listPreparedSQL).ReadAll()
	if err != nil {
		return err
	}
	if len(res) != 1 {
		return errors.New("pgkeeper: no list of prepared statements")
	}
	got := map[string]string{}
	for _, r := range res[0].Rows {
		if len(r) != 3 {
			return errors.New("pgkeeper: unexpected list of prepared statements")
		}
		got[string(r[0])] = string(r[1]) + "\x00" + string(r[2])
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.prepared == nil || len(k.prepared) >= maxPrepared {
		k.prepared = map[uint32]map[string]string{}
	}
	k.prepared[pc.PID()] = got
	return nil
}

// maxPrepared bounds the backends the keeper remembers statements of (held,
// lent, or gone without a word): past it they are forgotten, and prepared
// again when they come back.
const maxPrepared = 64

func (k *keeper) forget(pid uint32) {
	k.mu.Lock()
	delete(k.prepared, pid)
	k.mu.Unlock()
}

// take checks a connection a hook gave and keeps it: resetSQL resets whatever
// the session set (and shows a connection given back inside a transaction,
// which is closed, not kept), and the keeper's prepared statements are kept
// when it can vouch for them, else prepared again.
func (k *keeper) take(conn net.Conn, m *meta) {
	k.mu.Lock()
	k.taking++
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.taking--
		k.signal()
		k.mu.Unlock()
	}()
	pc, err := pgconn.Construct(&pgconn.HijackedConn{
		Conn: conn, PID: m.PID, SecretKey: m.SecretKey, ParameterStatuses: m.Params,
		TxStatus: 'I', Config: k.cfg, CustomData: map[string]any{},
	})
	if err != nil {
		terminate(conn)
		return
	}
	if m.Params == nil {
		closeConn(pc)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := pc.Exec(ctx, resetSQL).ReadAll()
	if err != nil || pc.TxStatus() != 'I' || len(res) == 0 {
		k.forget(pc.PID())
		closeConn(pc)
		return
	}
	if !k.vouch(pc.PID(), res[len(res)-1].Rows) {
		if err := k.prepare(ctx, pc); err != nil || pc.TxStatus() != 'I' {
			k.forget(pc.PID())
			closeConn(pc)
			return
		}
	}
	if pc.SyncConn(ctx) != nil {
		k.forget(pc.PID())
		closeConn(pc)
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.idle) >= MaxIdleConns {
		delete(k.prepared, pc.PID())
		closeConn(pc)
		return
	}
	k.idle = append(k.idle, pc)
	k.signal()
}

// signal wakes lends waiting for a connection; k.mu is held.
func (k *keeper) signal() {
	close(k.changed)
	k.changed = make(chan struct{})
}

// giveInFlight reports whether a borrower's give waits unread on its socket;
// k.mu is held.
func (k *keeper) giveInFlight() bool {
	for uc := range k.sessions {
		if pending(uc) {
			return true
		}
	}
	return false
}

// pending reports whether a message waits to be read on uc. It peeks without
// the read lock (RawConn.Control): giveBack's goroutine is blocked reading uc.
func pending(uc *net.UnixConn) bool {
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var b [1]byte
	_ = raw.Control(func(fd uintptr) {
		n, _, _ = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	})
	return n > 0
}

func closeConn(pc *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = pc.Close(ctx)
}

// quiet reports whether an idle connection has nothing to read: an idle
// session the server has not ended says nothing unasked.
func quiet(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	ok = false
	var b [1]byte
	_ = raw.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		ok = errors.Is(err, syscall.EAGAIN)
		return true
	})
	return ok
}
