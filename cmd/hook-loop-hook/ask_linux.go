package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
}

// socketPath names the server of this binary, user and environment: the
// full binary's identity (an upgrade starts a new server, the old one idles
// out) and every variable, so a hook never reaches a server whose decisions
// would read another environment. The server checks the environment itself;
// the name only routes.
func (c *client) socketPath() (string, *syscall.Stat_t, error) {
	st := c.fullSt
	if st == nil {
		st = new(syscall.Stat_t)
		if err := syscall.Stat(c.full, st); err != nil {
			return "", nil, err
		}
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d %d %d %d %d\x00", st.Dev, st.Ino, st.Size, st.Mtim.Nano(), os.Getuid())
	for _, kv := range wire.ServerEnv(c.env) {
		io.WriteString(h, kv)
		h.Write([]byte{0})
	}
	sock := filepath.Join(stateDir(c.env), "hookd", strconv.FormatUint(h.Sum64(), 16)+".sock")
	if len(sock) >= 108 { // sun_path
		return "", nil, fmt.Errorf("%w: %s is too long for a unix socket", errNoSocket, sock)
	}
	return sock, st, nil
}

// ask sends req to the server and reads its answer. sent is true once the
// server said it started the hook: the event may then be in the log.
func (c *client) ask(req wire.Request) (a wire.Answer, sent bool, err error) {
	sock, full, err := c.socketPath()
	if err != nil {
		return a, false, err
	}
	c.sock = sock
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return a, false, err
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return a, false, errNoServer
		}
		return a, false, fmt.Errorf("hook server %s: %w", sock, err)
	}
	if err := c.verify(fd, full); err != nil {
		return a, false, fmt.Errorf("hook server %s: %w", sock, err)
	}
	conn := &fdConn{fd: fd}
	wait := startWait(req.Args)
	conn.setWait(wait)
	tv := syscall.NsecToTimeval(wait.Nanoseconds())
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	if err := writeAll(fd, wire.AppendRequest(nil, req)); err != nil {
		// Nothing started: the server reads a whole request before it runs it.
		return a, false, fmt.Errorf("hook server %s: send: %w", sock, err)
	}
	var first [1]byte
	if _, err := io.ReadFull(conn, first[:]); err != nil {
		return a, false, fmt.Errorf("hook server %s: %w", sock, err)
	}
	var rd io.Reader = conn
	if first[0] == wire.Started {
		sent = true
		conn.setWait(answerTimeout)
	} else {
		rd = io.MultiReader(strings.NewReader(string(first[:])), conn)
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

// verify trusts the server only if it is this user's process of the
// hook-loop binary beside this one, confined exactly as this process and
// traced by no one: a server the agent started inside its sandbox, under a
// debugger or from another binary would answer as it likes.
func (c *client) verify(fd int, full *syscall.Stat_t) error {
	cred, err := confine.PeerCred(fd)
	if err != nil {
		return err
	}
	if int(cred.Uid) != os.Getuid() || cred.Pid <= 0 {
		return fmt.Errorf("its process runs as uid %d, not %d", cred.Uid, os.Getuid())
	}
	pid := confine.Pid(cred.Pid)
	var exe syscall.Stat_t
	if err := syscall.Stat("/proc/"+pid+"/exe", &exe); err != nil {
		return fmt.Errorf("its binary cannot be read: %w", err)
	}
	if exe.Dev != full.Dev || exe.Ino != full.Ino {
		return fmt.Errorf("its process (pid %s) does not run %s", pid, c.full)
	}
	if !confine.Alike(confine.Read(pid), confine.Read("self")) {
		return fmt.Errorf("its process (pid %s) is confined otherwise than this hook, or traced", pid)
	}
	return nil
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// fdConn reads fd with plain read(2): no runtime poller for one socket.
type fdConn struct {
	fd   int
	wait time.Duration // SO_RCVTIMEO
}

func (f *fdConn) setWait(d time.Duration) {
	f.wait = d
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	_ = syscall.SetsockoptTimeval(f.fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
}

func (f *fdConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return 0, errors.New("no answer within " + f.wait.String())
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}
