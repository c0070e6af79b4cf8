package pgkeeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/usersock"
)

// giveTimeout bounds handing a connection to the keeper: a hung keeper costs
// a finished hook no more than this.
const giveTimeout = 50 * time.Millisecond

// Borrow asks the keeper for an idle connection to key's database. With no
// keeper listening it starts one (for the next hooks) and returns an error at
// once; the caller connects by itself.
func (c *Client) Borrow(ctx context.Context, key string) (*postgres.Loan, error) {
	if err := secureDir(c.Dir, true); err != nil {
		return nil, err
	}
	path := c.socketPath(key)
	uc, err := dial(ctx, path)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			c.start(path, key)
		}
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = uc.SetDeadline(dl)
	}
	req := appendRequest(nil, request{Op: "borrow", Key: key})
	if _, err := uc.Write(req); err != nil {
		uc.Close()
		return nil, fmt.Errorf("pgkeeper: borrow: %w", err)
	}
	var rep reply
	conn, err := readMsg(uc, func(b []byte) error { return parseReply(b, &rep) })
	if err != nil {
		uc.Close()
		return nil, fmt.Errorf("pgkeeper: borrow: %w", err)
	}
	c.keep(key, uc)
	if !rep.OK || rep.Meta == nil || conn == nil {
		if conn != nil {
			_ = conn.Close()
		}
		return nil, ErrNone
	}
	return &postgres.Loan{Conn: conn, PID: rep.Meta.PID, SecretKey: rep.Meta.SecretKey, Params: rep.Meta.Params, Prepared: rep.Meta.Prepared}, nil
}

// Give hands l's connection to the keeper (back, or for the first time). It
// closes the connection when there is no keeper to take it.
func (c *Client) Give(key string, l *postgres.Loan) {
	if !c.giveKept(key, l) && !c.give(key, l) {
		terminate(l.Conn)
	}
}

// keep holds on to the socket a borrow was answered on (whether it lent or
// not): the keeper checked this process when it connected (serves) and
// waits on that socket for the connection to come back, so the give at the
// hook's end is one message, with no new check to wait for. A give on a new
// socket must wait until the keeper has looked at the giver: that wait was a
// tenth of a hook's time on PostgreSQL. It replaces a socket
// kept before.
func (c *Client) keep(key string, uc *net.UnixConn) {
	_ = uc.SetDeadline(time.Time{})
	c.mu.Lock()
	old := c.kept
	c.kept, c.keptKey = uc, key
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
}

// giveKept gives l on the socket kept from the borrow, if there is one for
// key; it reports whether the message went (the keeper owns l.Conn then).
func (c *Client) giveKept(key string, l *postgres.Loan) bool {
	c.mu.Lock()
	uc, k := c.kept, c.keptKey
	c.kept = nil
	c.mu.Unlock()
	if uc == nil {
		return false
	}
	defer uc.Close()
	if k != key {
		return false
	}
	sc, ok := l.Conn.(interface{ File() (*os.File, error) })
	if !ok {
		return false
	}
	f, err := sc.File()
	if err != nil {
		return false
	}
	defer f.Close()
	_ = uc.SetWriteDeadline(time.Now().Add(giveTimeout))
	msg := appendRequest(nil, request{Op: "give", Key: key, Meta: &meta{PID: l.PID, SecretKey: l.SecretKey, Params: l.Params}})
	if _, _, err := uc.WriteMsgUnix(msg, syscall.UnixRights(int(f.Fd())), nil); err != nil {
		return false
	}
	_ = l.Conn.Close()
	return true
}

func (c *Client) give(key string, l *postgres.Loan) bool {
	if secureDir(c.Dir, false) != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), giveTimeout)
	defer cancel()
	uc, err := dial(ctx, c.socketPath(key))
	if err != nil {
		return false
	}
	defer uc.Close()
	_ = uc.SetDeadline(time.Now().Add(giveTimeout))
	sc, ok := l.Conn.(interface{ File() (*os.File, error) })
	if !ok {
		return false
	}
	f, err := sc.File()
	if err != nil {
		return false
	}
	defer f.Close()
	msg := appendRequest(nil, request{Op: "give", Key: key, Meta: &meta{PID: l.PID, SecretKey: l.SecretKey, Params: l.Params}})
	if _, _, err := uc.WriteMsgUnix(msg, syscall.UnixRights(int(f.Fd())), nil); err != nil {
		return false
	}
	// The message holds its own reference to the connection: ours go.
	_ = l.Conn.Close()
	// Wait for the keeper's word: it looks at who gave (serves), and a
	// process that has exited can no longer be looked at, so a give answered
	// by nobody would be refused.
	var rep reply
	_, _ = readMsg(uc, func(b []byte) error { return parseReply(b, &rep) })
	return true
}

// terminate ends a connection politely (the Terminate message, so the server
// does not log an unexpected EOF) and closes it.
func terminate(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(giveTimeout))
	_, _ = c.Write([]byte{'X', 0, 0, 0, 4})
	_ = c.Close()
}

// dial connects to a keeper's socket and checks the keeper is this user's.
func dial(ctx context.Context, path string) (*net.UnixConn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unixpacket", path)
	if err != nil {
		return nil, err
	}
	uc := conn.(*net.UnixConn)
	if err := checkPeer(uc); err != nil {
		uc.Close()
		return nil, err
	}
	return uc, nil
}

// checkPeer refuses a peer running as another user (SO_PEERCRED).
func checkPeer(uc *net.UnixConn) error {
	cred, err := peerCred(uc)
	if err != nil {
		return err
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("pgkeeper: peer runs as uid %d, not %d", cred.Uid, os.Getuid())
	}
	return nil
}

// readMsg reads one message, decoded by decode, and the connection passed
// with it, if any.
func readMsg(uc *net.UnixConn, decode func([]byte) error) (net.Conn, error) {
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, flags, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	var conn net.Conn
	if oobn > 0 {
		conn, err = fdConn(oob[:oobn])
	}
	if err == nil && flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 {
		err = errors.New("message truncated")
	}
	if err == nil {
		err = decode(buf[:n])
	}
	if err != nil && conn != nil {
		_ = conn.Close()
		conn = nil
	}
	return conn, err
}

// fdConn makes a net.Conn of the one descriptor passed in oob; any other
// descriptors are closed, as is anything that is not a TCP or unix socket.
func fdConn(oob []byte) (net.Conn, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for i := range msgs {
		if r, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, r...)
		}
	}
	if len(fds) == 0 {
		return nil, nil
	}
	for _, fd := range fds[1:] {
		syscall.Close(fd)
	}
	f := os.NewFile(uintptr(fds[0]), "lent connection")
	defer f.Close()
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	switch conn.(type) {
	case *net.TCPConn, *net.UnixConn:
		return conn, nil
	}
	conn.Close()
	return nil, errors.New("passed descriptor is not a TCP or unix socket")
}

// secureDir is usersock.PrivateDir: the keeper's directory, only this
// user's.
var secureDir = usersock.PrivateDir

// start runs a keeper for key in the background, detached from the hook (its
// own session, no stdio, an empty environment: it needs no password). Two
// hooks starting one at once is fine: the second keeper finds the first's
// lock and exits.
func (c *Client) start(path, key string) {
	if c.Exe == "" || len(path) > 100 { // sun_path holds 108 bytes
		return
	}
	cmd := exec.Command(c.Exe, Arg, path, key)
	cmd.Dir = "/"
	cmd.Env = []string{}
	if c.Idle > 0 {
		cmd.Env = append(cmd.Env, IdleEnv+"="+c.Idle.String())
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return
	}
	// Reaped if this process outlives it (hook-loop serve); a hook exits first.
	go func() { _ = cmd.Wait() }()
}
