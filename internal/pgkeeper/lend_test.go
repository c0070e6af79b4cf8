//go:build linux

package pgkeeper

import (
	"context"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5/pgconn"
)

// unixPair is a connected SOCK_SEQPACKET pair, as a borrow's socket is.
func unixPair(t *testing.T) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out [2]*net.UnixConn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c.(*net.UnixConn)
		t.Cleanup(func() { out[i].Close() })
	}
	return out[0], out[1]
}

// TestLendWaitsForAGiveNotYetRead: a hook gives its connection back without
// waiting (Client.giveKept), so the next hook can ask before the keeper has
// read that give. The keeper then waits for it instead of answering "none"
// (and sending that hook to connect by itself).
func TestLendWaitsForAGiveNotYetRead(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	defer func(d time.Duration) { lendWait = d }(lendWait)
	lendWait = time.Minute // the test's own pace never runs it out
	cfg, _ := pgconn.ParseConfig("host=/nonexistent sslmode=disable")
	k := &keeper{key: "k", cfg: cfg, last: time.Now(), sessions: map[*net.UnixConn]bool{}, changed: make(chan struct{})}
	// A borrower's socket with its give sent and not read.
	session, giver := unixPair(t)
	k.sessions[session] = true
	if _, err := giver.Write([]byte(`{"op":"give"}`)); err != nil {
		t.Fatal(err)
	}
	ask, asker := unixPair(t)
	done := make(chan bool)
	go func() { done <- k.lend(ask) }()
	// What the give brings, as giveBack would hand it on.
	pc, err := pgconn.Connect(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	k.mu.Lock()
	delete(k.sessions, session)
	k.idle = append(k.idle, pc)
	k.signal()
	k.mu.Unlock()
	var rep reply
	conn, err := readMsg(asker, func(b []byte) error { return parseReply(b, &rep) })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || conn == nil {
		t.Fatalf("lend answered %+v with no connection, want the one being given", rep)
	}
	conn.Close()
	if !<-done {
		t.Fatal("lend reports the borrower had no answer")
	}
}
