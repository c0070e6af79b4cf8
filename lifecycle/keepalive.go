//go:build unix

package lifecycle

// A kept-alive executor: the first hook process that needs it starts a small
// server (hook-loop's hidden `hooks keepalive-serve`) that listens on a unix
// socket under $XDG_STATE_HOME/hook-loop/executors and runs the executor as
// one long-lived child speaking newline-delimited JSON-RPC on its stdin and
// stdout. Every later hook process connects and sends one request. The
// socket's name hashes the executor's argv, directory, environment and file
// contents, so an edited hook gets a new server and the old one idles out.
//
// Client → server, one line: {"deadline":unix-ns,"request":<JSON-RPC request>}
// (client and server share the machine's clock, so the server kills a hung
// executor at the very deadline the hook process gave up at)
// Server → client, one line: {"answer":<JSON-RPC response>} or {"error":"why"}

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const keepAliveSupported = true

// keepSpec is everything the server needs; it travels as its one argument.
type keepSpec struct {
	Name   string   `json:"name"`
	Socket string   `json:"socket"`
	Lock   string   `json:"lock"`
	Argv   []string `json:"argv"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"`
	IdleMS int64    `json:"idle_ms"`
}

type keepRequest struct {
	Deadline int64           `json:"deadline"`
	Request  json.RawMessage `json:"request"`
}

type keepAnswer struct {
	Answer json.RawMessage `json:"answer,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// maxSocketPath is below every unix's sun_path limit (104 on macOS).
const maxSocketPath = 100

func (r *Runner) keepSpec(e Entry, env []string) (keepSpec, error) {
	env = append(env, "HOOK_LOOP_KEEPALIVE=1")
	h := sha256.New()
	id, _ := json.Marshal([]any{e.Argv(), e.Dir, env, e.idle()})
	h.Write(id)
	if f := e.File(); f != "" {
		// The file's contents, not its mtime: a checkout or an editor's
		// save-in-place keeps or fakes mtimes, a hash never misses an edit.
		if b, err := os.ReadFile(f); err == nil {
			h.Write(b)
		}
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(r.stateDir(), "hook-loop", "executors")
	if len(filepath.Join(dir, e.Name+"-"+sum+".sock")) > maxSocketPath {
		dir = filepath.Join(os.TempDir(), "hook-loop-"+strconv.Itoa(os.Getuid()))
	}
	if err := privateDir(dir); err != nil {
		return keepSpec{}, fmt.Errorf("kept-alive executor: %w", err)
	}
	base := filepath.Join(dir, e.Name+"-"+sum)
	if len(base+".sock") > maxSocketPath {
		base = filepath.Join(dir, sum)
	}
	return keepSpec{Name: e.Name, Socket: base + ".sock", Lock: base + ".lock", Argv: e.Argv(), Dir: e.Dir, Env: env, IdleMS: e.idle().Milliseconds()}, nil
}

// privateDir makes dir (0700) and refuses one another user owns or may write:
// whoever can put a socket there would receive every hook's context.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || (ok && int(st.Uid) != os.Getuid()) || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("refusing %s: not a directory of this user's that only it can write", dir)
	}
	return nil
}

// callKept sends one request to the entry's kept-alive executor, starting it
// when no server answers on its socket.
func (r *Runner) callKept(ctx context.Context, e Entry, env []string, req []byte) ([]byte, error) {
	spec, err := r.keepSpec(e, env)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		conn, err := net.Dial("unix", spec.Socket)
		if err != nil {
			if conn, err = r.startKept(ctx, spec); err != nil {
				return nil, err
			}
		}
		answer, gone, err := roundTrip(ctx, conn, req)
		conn.Close()
		// A server that closed without a word was idling out as we came:
		// the next attempt starts a fresh one.
		if gone && attempt == 0 && ctx.Err() == nil {
			continue
		}
		return answer, err
	}
}

func roundTrip(ctx context.Context, conn net.Conn, req []byte) (answer []byte, gone bool, err error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultTimeout)
	}
	// The server kills the executor at the deadline; the connection waits a
	// little longer for it to say so.
	_ = conn.SetDeadline(deadline.Add(250 * time.Millisecond))
	line, _ := json.Marshal(keepRequest{Deadline: deadline.UnixNano(), Request: req})
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return nil, true, fmt.Errorf("kept-alive executor: send: %v", err)
	}
	got, err := bufio.NewReader(io.LimitReader(conn, maxAnswer+1024)).ReadBytes('\n')
	if err != nil {
		if len(got) == 0 && errors.Is(err, io.EOF) {
			return nil, true, fmt.Errorf("kept-alive executor closed the connection")
		}
		if ctx.Err() != nil {
			return nil, false, fmt.Errorf("kept-alive executor killed")
		}
		return nil, false, fmt.Errorf("kept-alive executor: read: %v", err)
	}
	var a keepAnswer
	if err := json.Unmarshal(got, &a); err != nil {
		return nil, false, fmt.Errorf("kept-alive executor: bad server answer: %s", snippet(got))
	}
	if a.Error != "" {
		return nil, false, errors.New(a.Error)
	}
	return a.Answer, false, nil
}

// startKept starts the server under the lock, so of many hook processes that
// found no server exactly one starts it and the others wait and connect.
func (r *Runner) startKept(ctx context.Context, spec keepSpec) (net.Conn, error) {
	unlock, err := lockFile(ctx, spec.Lock)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if conn, err := net.Dial("unix", spec.Socket); err == nil {
		return conn, nil // started by whoever held the lock before us
	}
	_ = os.Remove(spec.Socket) // a dead server's; nobody listens on it
	argv := r.Serve
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("kept-alive executor: %w", err)
		}
		argv = []string{exe, "hooks", "keepalive-serve"}
	}
	specJSON, _ := json.Marshal(spec)
	cmd := exec.Command(argv[0], append(argv[1:], string(specJSON))...)
	cmd.Dir = spec.Dir
	// Its own session: the server outlives this hook process and must not
	// get the harness's signals.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	logf, err := os.OpenFile(strings.TrimSuffix(spec.Socket, ".sock")+".log", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err == nil {
		defer logf.Close()
		cmd.Stderr = logf
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("kept-alive executor: start server: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if conn, err := net.Dial("unix", spec.Socket); err == nil {
			return conn, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("kept-alive executor: server exited at start: %v", err)
		case <-ctx.Done():
			return nil, fmt.Errorf("kept-alive executor: server not listening before the deadline")
		case <-tick.C:
		}
	}
}

// lockFile takes an exclusive flock on path, polling so ctx bounds the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("kept-alive executor: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("kept-alive executor: lock %s: %v", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("kept-alive executor: another hook process held %s past the deadline", path)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// ServeKeepAlive is the server of one kept-alive executor (specJSON is what
// callKept passed): it answers requests on the socket one at a time through
// the executor, restarts the executor when it died, kills it at a request's
// deadline, and exits after the idle time without a request.
func ServeKeepAlive(ctx context.Context, specJSON string) error {
	var spec keepSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("keepalive-serve: bad spec: %v", err)
	}
	ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	ln, err := net.Listen("unix", spec.Socket)
	if err != nil {
		return fmt.Errorf("keepalive-serve: %w", err)
	}
	pidFile := strings.TrimSuffix(spec.Socket, ".sock") + ".pid"
	_ = os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600)
	defer os.Remove(pidFile)
	// The socket file is removed under the lock (below), never by Close: a
	// newer server may already own the name.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	s := &keptServer{spec: spec, idle: time.Duration(spec.IdleMS) * time.Millisecond}
	defer s.stop()
	_ = s.start() // warm: the first call should not pay the import
	conns := make(chan net.Conn)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
	}()
	// The socket file is removed under the lock that starting a server takes,
	// so it can never remove a newer server's socket.
	shutdown := func() {
		lctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		unlock, err := lockFile(lctx, spec.Lock)
		_ = ln.Close()
		if err == nil {
			_ = os.Remove(spec.Socket)
			unlock()
		}
	}
	timer := time.NewTimer(s.idle)
	defer timer.Stop()
	var wg sync.WaitGroup
	for {
		select {
		case c, ok := <-conns:
			if !ok {
				wg.Wait()
				return nil
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serve(c)
			}()
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(s.idle)
		case <-timer.C:
			shutdown()
			wg.Wait()
			return nil
		case <-ctx.Done():
			shutdown()
			wg.Wait()
			return nil
		}
	}
}

type keptServer struct {
	spec keepSpec
	idle time.Duration

	mu     sync.Mutex // one request at a time through the executor
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // the executor's stdout, line by line; closed at its exit
	stderr *limitedBuffer
}

func (s *keptServer) start() error {
	cmd := exec.Command(s.spec.Argv[0], s.spec.Argv[1:]...)
	cmd.Dir = s.spec.Dir
	cmd.Env = append(os.Environ(), s.spec.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	s.stderr = &limitedBuffer{max: 4096}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot run command: %v", err)
	}
	lines := make(chan []byte, 1)
	go func() {
		defer close(lines)
		rd := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := rd.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				lines <- line
			}
			if err != nil {
				_ = cmd.Wait()
				return
			}
		}
	}()
	s.cmd, s.stdin, s.lines = cmd, stdin, lines
	return nil
}

func (s *keptServer) stop() {
	if s.cmd != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		s.stdin.Close()
		for range s.lines {
		}
		s.cmd = nil
	}
}

func (s *keptServer) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReaderSize(c, 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	var req keepRequest
	var a keepAnswer
	if err := json.Unmarshal(line, &req); err != nil {
		a.Error = "kept-alive executor: bad request line"
	} else {
		a.Answer, err = s.call(req)
		if err != nil {
			a.Error = err.Error()
		}
	}
	out, _ := json.Marshal(a)
	_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = c.Write(append(out, '\n'))
}

func (s *keptServer) call(req keepRequest) (json.RawMessage, error) {
	deadline := time.Unix(0, req.Deadline)
	s.mu.Lock()
	defer s.mu.Unlock()
	if time.Now().After(deadline) {
		return nil, fmt.Errorf("not run: waited past the deadline behind other calls")
	}
	if s.cmd != nil {
		// An executor that exited between calls is restarted, not reported.
		select {
		case _, ok := <-s.lines:
			if !ok {
				s.stop()
			}
		default:
		}
	}
	if s.cmd == nil {
		if err := s.start(); err != nil {
			return nil, err
		}
	}
	if _, err := s.stdin.Write(append(bytes.TrimSpace(req.Request), '\n')); err != nil {
		return nil, s.died()
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case line, ok := <-s.lines:
		if !ok {
			return nil, s.died()
		}
		return json.RawMessage(bytes.TrimSpace(line)), nil
	case <-timer.C:
		// A hung executor is killed like a fresh one; the next call restarts it.
		s.stop()
		return nil, fmt.Errorf("command %s killed", s.spec.Argv[0])
	}
}

// died reports the executor's exit and forgets it, so the next call starts it again.
func (s *keptServer) died() error {
	cmd := s.cmd
	s.stop() // waits for the exit, so stderr and the status are complete
	msg := firstLine(s.stderr.buf.String())
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	if msg != "" {
		return fmt.Errorf("kept-alive executor exited with status %d: %s", code, msg)
	}
	return fmt.Errorf("kept-alive executor exited with status %d", code)
}
