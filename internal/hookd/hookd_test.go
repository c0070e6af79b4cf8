//go:build linux

package hookd

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
	"github.com/hook-loop/hook-loop/internal/testkit/benchgen"
)

// served starts a server in-process on a socket of its own and returns a
// function that asks it one request.
func served(tb testing.TB) (ask func(wire.Request) (wire.Answer, bool)) {
	tb.Helper()
	ask, _ = servedAt(tb)
	return ask
}

// servedAt is served that also says where the socket is.
func servedAt(tb testing.TB) (ask func(wire.Request) (wire.Answer, bool), sock string) {
	tb.Helper()
	dir, err := os.MkdirTemp("", "hd")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	sock = filepath.Join(dir, "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, sock, Options{Idle: time.Minute, Ready: func() { close(ready) }}) }()
	select {
	case <-ready:
	case err := <-done:
		tb.Fatalf("serve: %v", err)
	}
	tb.Cleanup(func() { cancel(); <-done })
	return func(r wire.Request) (wire.Answer, bool) {
		c, err := net.Dial("unix", sock)
		if err != nil {
			tb.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write(wire.AppendRequest(nil, r)); err != nil {
			tb.Fatal(err)
		}
		var first [1]byte
		if _, err := c.Read(first[:]); err != nil {
			return wire.Answer{}, false
		}
		rd := c.(interface{ Read([]byte) (int, error) })
		var a wire.Answer
		if first[0] == wire.Started {
			a, err = wire.ReadAnswer(rd)
		} else {
			a, err = wire.ReadAnswer(&prefixed{b: first[:], r: rd})
		}
		if err != nil {
			tb.Fatal(err)
		}
		return a, first[0] == wire.Started
	}, sock
}

type prefixed struct {
	b []byte
	r interface{ Read([]byte) (int, error) }
}

func (p *prefixed) Read(b []byte) (int, error) {
	if len(p.b) > 0 {
		n := copy(b, p.b)
		p.b = p.b[n:]
		return n, nil
	}
	return p.r.Read(b)
}

func project(tb testing.TB) (cfg, dir string) {
	tb.Helper()
	tb.Setenv(eventlog.StateDirEnv, tb.TempDir())
	dsl, err := gallery.Get("plan_execute")
	if err != nil {
		tb.Fatal(err)
	}
	dir = tb.TempDir()
	cfg = filepath.Join(dir, "hook-loop.json")
	if err := os.WriteFile(cfg, dsl, 0o644); err != nil {
		tb.Fatal(err)
	}
	return cfg, dir
}

// payloads is where the recorded payloads are, found before any test: the
// server runs each hook in the client's directory, and in-process that is
// this process's.
var payloads, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "bench", "codex"))

func payload(tb testing.TB, event, dir string) []byte {
	b, err := os.ReadFile(filepath.Join(payloads, event+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "/home/dev/project", dir))
}

// The server runs a request only for a client of its own environment, and
// says so before it starts one; what it answers is the hook's answer. A
// declined request may come after Started — an idle server says it before it
// has the request (TestStartedComesFirstFromAnIdleServerOnly), and whether the
// server is still busy with the request before is a race — and the client
// counts only the Declined answer.
func TestServerAnswersItsEnvironmentOnly(t *testing.T) {
	cfg, dir := project(t)
	ask := served(t)
	req := wire.Request{Harness: "codex", Args: []string{"--event", "Stop", "--config", cfg}, Cwd: dir, Env: wire.EnvDigest(os.Environ()), Stdin: payload(t, "Stop", dir)}
	a, started := ask(req)
	if !started || a.Status != wire.Answered || !bytes.Contains(a.Stdout, []byte(`"decision":"block"`)) {
		t.Fatalf("stop: started=%v %+v %s", started, a, a.Stdout)
	}
	other := req
	other.Env = wire.EnvDigest(append(os.Environ(), "HOOK_LOOP_MODE=audit"))
	if a, _ := ask(other); a.Status != wire.Declined || !strings.Contains(a.Why, "environment") {
		t.Errorf("another environment: %+v", a)
	}
	bad := req
	bad.Args = []string{"--help"}
	if a, _ := ask(bad); a.Status != wire.Declined {
		t.Errorf("--help: %+v", a)
	}
	unknown := req
	unknown.Harness = "nope"
	if a, _ := ask(unknown); a.Status != wire.Declined {
		t.Errorf("unknown harness: %+v", a)
	}
}

// BenchmarkServedToolCall is one PreToolUse + PostToolUse pair through the
// server (socket round trips included) on a 10,000-event log: what a Codex
// tool call costs the server, without the client's process start.
func BenchmarkServedToolCall(b *testing.B) {
	cfg, dir := project(b)
	logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
	if _, err := benchgen.Write(logPath, benchgen.Options{Events: 10_000, Sessions: 8, Focus: "01a227e9-088f-7df0-891a-4bca05f577fd"}); err != nil {
		b.Fatal(err)
	}
	ask := served(b)
	env := wire.EnvDigest(os.Environ())
	pre, post := payload(b, "PreToolUse", dir), payload(b, "PostToolUse", dir)
	run := func(event string, in []byte) {
		a, _ := ask(wire.Request{Harness: "codex", Args: []string{"--event", event, "--config", cfg, "--event-log", logPath}, Cwd: dir, Env: env, Stdin: in})
		if a.Status != wire.Answered || a.Exit != 0 {
			b.Fatalf("%s: %+v", event, a)
		}
	}
	run("PreToolUse", pre)
	b.ReportAllocs()
	for b.Loop() {
		run("PreToolUse", pre)
		run("PostToolUse", post)
	}
}

// An idle server says Started as soon as it has the connection, before it
// checks the peer or has the request: the byte then reaches the client
// while it still checks the server, instead of waking it in the middle of
// the hook. A busy one says it only once its worker comes to the request,
// so that a client queued behind a slow hook can still give up and run the
// event itself.
func TestStartedComesFirstFromAnIdleServerOnly(t *testing.T) {
	cfg, dir := project(t)
	_, sock := servedAt(t)
	first := func(c net.Conn, within time.Duration) (byte, error) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(within))
		var b [1]byte
		_, err := c.Read(b[:])
		return b[0], err
	}
	idle, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if b, err := first(idle, 5*time.Second); err != nil || b != wire.Started {
		t.Fatalf("an idle server, nothing sent yet: %q %v (want Started)", b, err)
	}
	// No request follows: the server closes (and is idle again) without a word.
	idle.(*net.UnixConn).CloseWrite()
	if b, err := first(idle, 5*time.Second); err != io.EOF {
		t.Fatalf("after no request: %q %v (want the end)", b, err)
	}

	// Busy: a Stop waits on the log's lock, which the test holds.
	logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(logPath+".lock", os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	req := wire.AppendRequest(nil, wire.Request{Harness: "codex", Args: []string{"--event", "Stop", "--config", cfg, "--event-log", logPath},
		Cwd: dir, Env: wire.EnvDigest(os.Environ()), Stdin: payload(t, "Stop", dir)})
	var conns [2]net.Conn
	for i := range conns {
		if conns[i], err = net.Dial("unix", sock); err != nil {
			t.Fatal(err)
		}
		defer conns[i].Close()
		if _, err := conns[i].Write(req); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if b, err := first(conns[0], 5*time.Second); err != nil || b != wire.Started {
				t.Fatalf("the first request: %q %v (want Started)", b, err)
			}
			// Started came before the server checked the peer and read the
			// request: the second request could still reach the worker first.
			// The first is on the worker once the server has moved into its
			// directory (in-process, this process's), where its hook waits
			// on the lock.
			deadline := time.Now().Add(10 * time.Second)
			for wd, _ := syscall.Getwd(); wd != dir; wd, _ = syscall.Getwd() {
				if time.Now().After(deadline) {
					t.Fatalf("the first request's hook never began (working directory %s)", wd)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
	if b, err := first(conns[1], 300*time.Millisecond); err == nil {
		t.Fatalf("the queued request got %q while the first waits on the lock", b)
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	for i, c := range conns {
		if i == 1 {
			if b, err := first(c, 10*time.Second); err != nil || b != wire.Started {
				t.Fatalf("the queued request, once its turn came: %q %v (want Started)", b, err)
			}
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if a, err := wire.ReadAnswer(c); err != nil || a.Status != wire.Answered {
			t.Fatalf("request %d: %+v %v", i, a, err)
		}
	}
}
