package hookd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/internal/confine"
	"github.com/hook-loop/hook-loop/internal/hookcmd"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/hook-loop/hook-loop/internal/hookrun/full"
	"github.com/hook-loop/hook-loop/internal/serve"
	"github.com/hook-loop/hook-loop/internal/usersock"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/pin"
)

// Main runs the server: args are [SOCKET] after Arg. A server that finds
// another one holding the socket exits 0 at once.
func Main(args []string, getenv func(string) string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: hook-loop %s SOCKET\n", Arg)
		return 2
	}
	idle := usersock.Idle(getenv, IdleEnv, DefaultIdle)
	// One P: the server runs one hook at a time, and with more the accept
	// loop's goroutine woke another thread to run each request (as the
	// connection keeper found). Its heap is a few MiB, so collecting less
	// often costs little memory and a hook's share of the collector's time.
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(400)
	if err := Serve(context.Background(), args[0], Options{Idle: idle}); err != nil {
		fmt.Fprintln(os.Stderr, "hook-loop hook server:", err)
		return 1
	}
	return 0
}

// Options are a server's settings.
type Options struct {
	Idle time.Duration // exit after this long without a request (0: DefaultIdle)
	// Harnesses are the hooks it runs (nil: hooks.All()).
	Harnesses []harness.Hooks
	// Ready, when set, is called once the socket listens (tests).
	Ready func()
}

// Serve listens on path until no request came for o.Idle, path is no longer
// its socket (removed or replaced), or ctx is done.
func Serve(ctx context.Context, path string, o Options) error {
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.Harnesses == nil {
		o.Harnesses = hooks.All()
	}
	l, err := usersock.Listen("unix", path)
	if errors.Is(err, usersock.ErrHeld) {
		return nil // another server holds the socket
	}
	if err != nil {
		return err
	}
	s := &server{o: o, env: wire.EnvDigest(os.Environ()), self: confine.Read("self"), last: time.Now(),
		judge: serve.NewLoopJudge(), logs: eventlog.NewCache(), db: newPool(), work: make(chan func())}
	go s.worker()
	defer close(s.work)
	defer s.db.close()
	home, _ := os.UserHomeDir()
	s.owned = hooks.OwnedPaths(o.Harnesses, home, os.Getenv)
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			l.UnixListener.Close()
		case <-done:
		}
	}()
	go l.CloseWhen(done, min(time.Second, o.Idle/4+time.Millisecond), func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return time.Since(s.last) > o.Idle && s.inflight.Load() == 0
	})
	if o.Ready != nil {
		o.Ready()
	}
	var wg sync.WaitGroup
	for {
		uc, err := l.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				break
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(ctx, uc)
		}()
		// The request first, the next accept after: with one P the new
		// goroutine otherwise waited while this one asked the kernel for a
		// connection that is not there yet (EAGAIN, and parking on the
		// poller), a system call and a switch on every hook's way to its
		// answer. Queued connections wait in the listen backlog meanwhile.
		runtime.Gosched()
	}
	close(done)
	l.Close()
	wg.Wait()
	return nil
}

type server struct {
	o     Options
	env   wire.Digest
	self  confine.Of
	owned []string

	work  chan func() // to worker
	judge func(tx pin.Tx, sid string, f pin.File) (*dsl.Spec, string, error)
	logs  *eventlog.Cache
	db    *pool

	mu   sync.Mutex
	last time.Time // when the last hook ended
	// inflight counts the requests being handled, from their acceptance
	// to their answer and index write: the server is idle at none.
	inflight atomic.Int32
}

// requestTimeout bounds reading a request: a client writes it at once.
const requestTimeout = 5 * time.Second

func (s *server) handle(ctx context.Context, uc *net.UnixConn) {
	defer uc.Close()
	// Started goes out first, before the peer check, when no other request
	// is in hand: it then reaches the client while the client is still
	// checking this server, not once the client sleeps on the socket —
	// waking it in the middle of the hook cost the server a cross-CPU
	// wake-up and, on a machine whose CPUs are shared, CPU time (a served
	// hook 6-7 % slower). A client's event is then this server's to run or
	// to decline: it runs nothing for a peer it refuses (confined otherwise:
	// that client does not trust this server either, and runs the event
	// itself), and says so when it declines. When requests are queued, it is
	// sent only once the worker comes to this one, so that a client behind
	// a slow hook still gives up after its start wait and runs the event
	// itself (and stops reading first, so that this Started then fails).
	early := s.inflight.Add(1) == 1
	defer s.inflight.Add(-1)
	if early {
		if _, err := uc.Write([]byte{wire.Started}); err != nil {
			return
		}
	}
	// Clients send their event before they have checked the server, so a
	// server confined otherwise than they are (one the sandboxed agent
	// started) must run nothing for them — nor this one for the sandbox.
	if !usersock.Serves(uc, s.self, confine.Same) {
		return
	}
	_ = uc.SetReadDeadline(time.Now().Add(requestTimeout))
	req, err := wire.ReadRequest(uc)
	if err != nil {
		return
	}
	_ = uc.SetReadDeadline(time.Time{})
	if why := s.decline(req); why != "" {
		_, _ = uc.Write(wire.AppendAnswer(nil, wire.Answer{Status: wire.Declined, Why: why}))
		return
	}
	h, flags, ok := s.hook(req)
	if !ok {
		_, _ = uc.Write(wire.AppendAnswer(nil, wire.Answer{Status: wire.Declined, Why: "not a hook command this server runs"}))
		return
	}
	done := make(chan struct{})
	s.work <- func() {
		defer close(done)
		s.runHook(ctx, uc, req, h, flags, !early)
	}
	<-done
}

// worker runs the hooks, one at a time, as the plugin co-process does:
// what the server keeps (loops, logs) is one request's at a time, and hooks
// of one log queue on its lock anyway. One goroutine for all of them keeps
// the stack a hook grows to, which a goroutine per request grew (and
// copied) again at every hook.
func (s *server) worker() {
	for f := range s.work {
		func() {
			defer func() { _ = recover() }() // hookrun answers its own panics; the server lives on
			f()
		}()
	}
}

// runHook runs req's hook in the client's place and answers on uc.
func (s *server) runHook(ctx context.Context, uc *net.UnixConn, req wire.Request, h harness.Hooks, flags hookcmd.Flags, sayStarted bool) {
	defer func() {
		s.mu.Lock()
		s.last = time.Now()
		s.mu.Unlock()
	}()
	// The hook runs in the client's working directory, as in its place:
	// relative paths (a --hooks-config of the user's, filepath.Abs anywhere
	// below) then mean what they mean to the one-shot hook. Hooks run one at
	// a time, so the process's directory is this request's.
	if err := os.Chdir(req.Cwd); err != nil {
		_, _ = uc.Write(wire.AppendAnswer(nil, wire.Answer{Status: wire.Declined, Why: "its working directory: " + err.Error()}))
		return
	}
	defer os.Chdir("/")
	// From here the event may reach the log: the client must not run it
	// again if no answer follows (handle said so already, when it could).
	if sayStarted {
		if _, err := uc.Write([]byte{wire.Started}); err != nil {
			return
		}
	}
	// The index of the log is written after the answer is sent, still
	// under the log's lock and before the next hook runs here.
	var finish func()
	defer func() {
		if finish != nil {
			finish()
		}
	}()
	var out, errOut bytes.Buffer
	code := hookcmd.Run(ctx, hookcmd.Options{
		Harness: h, Flags: flags,
		In: bytes.NewReader(req.Stdin), Out: &out, ErrOut: &errOut,
		Getenv: os.Getenv, WorkDir: req.Cwd, OwnedPaths: s.owned,
		With: func(ho hookrun.Options) hookrun.Options {
			ho.OpenDB = full.OpenDBWith(s.db)
			ho = full.With(ho)
			ho.Judge = s.judge
			ho.LogCache = s.logs
			ho.IndexLater = func(f func()) { finish = f }
			return ho
		},
	})
	_, _ = uc.Write(wire.AppendAnswer(nil, wire.Answer{Status: wire.Answered, Exit: int32(code), Stdout: out.Bytes(), Stderr: errOut.Bytes()}))
	// Done with the client, which needs nothing of what finish does.
	_ = uc.Close()
}

// decline says why the server will not run req ("": it will).
func (s *server) decline(req wire.Request) string {
	if req.Env != s.env {
		return "its environment is not this server's"
	}
	if !filepath.IsAbs(req.Cwd) {
		return "no absolute working directory"
	}
	return ""
}

func (s *server) hook(req wire.Request) (harness.Hooks, hookcmd.Flags, bool) {
	for _, h := range s.o.Harnesses {
		if h.Name() == req.Harness {
			flags, ok := hookcmd.Parse(req.Args)
			return h, flags, ok
		}
	}
	return nil, hookcmd.Flags{}, false
}
