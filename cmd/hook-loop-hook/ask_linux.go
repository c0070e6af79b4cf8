package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/hook-loop/hook-loop/internal/confine"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
)

// errNoServer: nothing listens at the socket (yet, or any more).
var errNoServer = errors.New("no hook server")

// errNoSocket: this environment's socket cannot be named (its path is longer
// than a unix socket's): every hook is hook-loop's, as with the server off.
var errNoSocket = errors.New("no socket for a hook server")

// client asks the hook server of one environment.
type client struct {
	full   string          // hook-loop, whose process the server must be
	fullSt *syscall.Stat_t // its identity (nil: socketPath stats it)
	env    []string        // this hook's environment, which the server must share
	sock   string          // the socket, once named
	conn   *wire.Conn      // connected to sock, once dialled
}

// socketPath names the server of this binary, user and environment: the
// full binary's identity (an upgrade starts a new server, the old one idles
// out) and every variable the server compares, so a hook never reaches a
// server whose decisions would read another environment. The name only
// routes — the request carries the environment's SHA-256 for the server to
// compare — so it is a plain FNV-1a, summed over the variables in whatever
// order they come: no sort before the connection.
func (c *client) socketPath() (string, *syscall.Stat_t, error) {
	st := c.fullSt
	if st == nil {
		st = new(syscall.Stat_t)
		if err := syscall.Stat(c.full, st); err != nil {
			return "", nil, err
		}
	}
	id := make([]byte, 0, 6*8)
	for _, v := range []uint64{st.Dev, st.Ino, uint64(st.Size), uint64(st.Mtim.Nano()), uint64(os.Getuid())} {
		id = binary.LittleEndian.AppendUint64(id, v)
	}
	var vars uint64
	e := fnv.New64a()
	for _, kv := range c.env {
		if wire.Compared(kv) {
			e.Reset()
			e.Write([]byte(kv))
			vars += e.Sum64()
		}
	}
	h := fnv.New64a()
	h.Write(binary.LittleEndian.AppendUint64(id, vars))
	sock := filepath.Join(stateDir(c.env), "hookd", strconv.FormatUint(h.Sum64(), 16)+".sock")
	if len(sock) >= 108 { // sun_path
		return "", nil, fmt.Errorf("%w: %s is too long for a unix socket", errNoSocket, sock)
	}
	return sock, st, nil
}

// dial names the socket and connects to it; c.conn is the connection.
func (c *client) dial() error {
	sock, st, err := c.socketPath()
	if err != nil {
		return err
	}
	c.sock, c.fullSt = sock, st
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		syscall.Close(fd)
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return errNoServer
		}
		return fmt.Errorf("hook server %s: %w", sock, err)
	}
	c.conn = wire.NewConn(fd)
	return nil
}

func (c *client) close() {
	if c.conn != nil {
		c.conn.Close()
	}
}

// bigRequest is where a request could fill the socket's buffer (the kernel
// gives a unix socket some 200 KiB): only then can sending it block on a
// server that does not read, and wait under SO_SNDTIMEO.
const bigRequest = 64 << 10

// ask sends req on the connection dial made (dialErr: why there is none)
// and reads the answer. sent is true once the server said it took the
// event (wire.Started) and did not decline it: the event may then be in
// the log.
//
// The request goes out at once, and this process checks the server while
// the server runs the hook (the check's reads of /proc would otherwise come
// first): the request carries nothing the agent does not have (wire), and
// the answer is read only from a server that passed. One that did not is
// answered by hook-loop in this process's place — unless it is hook-loop's
// own binary, confined as this process (so it serves it: confine.Same) but
// traced, and said Started: the event may be in the log, and is lost, as
// with a server that dies. A server confined otherwise says Started too,
// but refuses this process and runs nothing.
func (c *client) ask(dialErr error, req wire.Request) (a wire.Answer, sent bool, err error) {
	if dialErr != nil {
		return a, false, dialErr
	}
	sock, conn, fd := c.sock, c.conn, c.conn.FD()
	req.Env = wire.EnvDigest(c.env)
	wait := startWait(req.Args)
	_ = conn.SetReadTimeout(wait)
	msg := wire.AppendRequest(nil, req)
	if len(msg) > bigRequest {
		_ = conn.SetSendTimeout(wait)
	}
	if err := conn.Send(msg); err != nil {
		// Nothing started: the server reads a whole request before it runs it.
		// A server that refused this process closes before the request is
		// in: the check says why, which the broken pipe does not.
		if verr := c.verify(fd, c.fullSt); verr != nil {
			return a, false, fmt.Errorf("hook server %s: %w", sock, verr)
		}
		return a, false, fmt.Errorf("hook server %s: send: %w", sock, err)
	}
	if err := c.verify(fd, c.fullSt); err != nil {
		var u *untrusted
		if errors.As(err, &u) && u.runs {
			b, ferr := firstByte(conn)
			sent = ferr == nil && b == wire.Started
		}
		return a, sent, fmt.Errorf("hook server %s: %w", sock, err)
	}
	b, err := firstByte(conn)
	if err != nil {
		return a, false, fmt.Errorf("hook server %s: %w", sock, err)
	}
	var rd io.Reader = conn
	if b == wire.Started {
		sent = true
		_ = conn.SetReadTimeout(answerTimeout)
	} else {
		rd = io.MultiReader(bytes.NewReader([]byte{b}), conn)
	}
	a, err = wire.ReadAnswer(rd)
	if err != nil {
		return a, sent, fmt.Errorf("hook server %s: answer: %w", sock, err)
	}
	if a.Status == wire.Declined {
		return a, false, fmt.Errorf("hook server %s declined: %s", sock, a.Why)
	}
	return a, sent, nil
}

// firstByte reads the server's first byte — Started, or an answer that
// needs none — within the start wait. Past it, the client stops reading: a
// Started sent by then is read, and the hook is the server's; one the server
// would send later fails, and it runs nothing (a busy server comes to the
// request after this process gave up), so the hook is this process's to
// hand on without counting twice.
func firstByte(conn *wire.Conn) (byte, error) {
	var b [1]byte
	_, err := io.ReadFull(conn, b[:])
	if errors.Is(err, wire.ErrTimeout) {
		if first, ok := conn.StopReading(); ok {
			return first, nil
		}
	}
	return b[0], err
}

// startWait is startTimeout, shorter for a SessionEnd: Codex clamps that
// hook to 3 s, fallback included.
func startWait(args []string) time.Duration {
	for i, a := range args {
		if a == "--event=SessionEnd" || a == "-event=SessionEnd" || (a == "--event" || a == "-event") && i+1 < len(args) && args[i+1] == "SessionEnd" {
			return sessionEndStartTimeout
		}
	}
	return startTimeout
}

// untrusted is why verify does not trust the server; runs is true when it
// may run the event all the same: hook-loop's binary, and not known to be
// confined otherwise than this process (which it would refuse).
type untrusted struct {
	why  string
	runs bool
}

func (u *untrusted) Error() string { return u.why }

// verify trusts the server only if it is this user's process of the
// hook-loop binary beside this one, confined exactly as this process and
// traced by no one: a server the agent started inside its sandbox, under a
// debugger or from another binary would answer as it likes.
func (c *client) verify(fd int, full *syscall.Stat_t) error {
	cred, err := confine.PeerCred(fd)
	if err != nil {
		return &untrusted{why: "its process cannot be told: " + err.Error()}
	}
	if int(cred.Uid) != os.Getuid() || cred.Pid <= 0 {
		return &untrusted{why: fmt.Sprintf("its process runs as uid %d, not %d", cred.Uid, os.Getuid())}
	}
	pid := confine.Pid(cred.Pid)
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/"+pid+"/exe", &exe); err != nil {
		// A peer that has already ended may be the server that took the
		// event and died (an idle one says Started before it has checked
		// this process, and the hook may be done by the time this check
		// looks): it counts as having run it, so a Started it sent makes the
		// event lost — refused once, as with a server that dies — and never
		// run twice.
		gone := errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESRCH)
		return &untrusted{why: "its binary cannot be read: " + err.Error(), runs: gone}
	}
	if exe.Dev != full.Dev || exe.Ino != full.Ino {
		return &untrusted{why: fmt.Sprintf("its process (pid %s) does not run %s", pid, c.full)}
	}
	peer, self := confine.Read(pid), confine.Self()
	if !confine.Alike(peer, self) {
		runs := !peer.OK || !self.OK || confine.Same(peer, self)
		return &untrusted{why: fmt.Sprintf("its process (pid %s) is confined otherwise than this hook, or traced", pid), runs: runs}
	}
	return nil
}
