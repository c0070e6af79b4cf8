package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
)

// bins holds hook-loop and hook-loop-hook built side by side, as installs
// find them; TestMain builds them once.
var bins struct {
	dir, full, client string
	err               error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hook-loop-hook-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.dir = dir
	bins.full, bins.client = filepath.Join(dir, FullName), filepath.Join(dir, "hook-loop-hook")
	for _, b := range [][2]string{{bins.full, "../.."}, {bins.client, "."}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil && bins.err == nil {
			bins.err = fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proj is one project gated by plan_execute, with an environment of its own
// (state and config folders), as one harness's hooks see it.
type proj struct {
	t     *testing.T
	dir   string
	state string
	env   []string
}

func newProj(t *testing.T, extraEnv ...string) *proj {
	t.Helper()
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	p := &proj{t: t, dir: t.TempDir()}
	dsl, err := gallery.Get("plan_execute")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "hook-loop.json"), dsl, 0o644); err != nil {
		t.Fatal(err)
	}
	// A short path: the socket's name must fit a sockaddr_un.
	p.state, err = os.MkdirTemp("", "hl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.stopServer()
		os.RemoveAll(p.state)
	})
	p.env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(),
		"HOOK_LOOP_STATE_DIR=" + p.state}, extraEnv...)
	return p
}

// payload is the recorded Codex payload of event, pointed at the project.
func (p *proj) payload(event string, edit func(string) string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bench", "codex", event+".json"))
	if err != nil {
		p.t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "/home/dev/project", p.dir)
	if edit != nil {
		s = edit(s)
	}
	return []byte(s)
}

type result struct {
	code        int
	out, errOut string
}

// hook runs `hook-loop-hook codex-hook` for event as Codex would.
func (p *proj) hook(event string, input []byte, extraArgs ...string) result {
	p.t.Helper()
	args := append([]string{"codex-hook", "--event", event, "--config", filepath.Join(p.dir, "hook-loop.json")}, extraArgs...)
	cmd := exec.Command(bins.client, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = p.dir, p.env, bytes.NewReader(input)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.t.Fatal(err)
	}
	return result{cmd.ProcessState.ExitCode(), o.String(), e.String()}
}

// sock is the socket the client names for this project's environment.
func (p *proj) sock() string {
	p.t.Helper()
	c := client{full: bins.full, env: p.env}
	s, _, err := c.socketPath()
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

// serverPID is the server's pid from its lock file, once it listens (0
// when none came up within a few seconds).
func (p *proj) serverPID() int {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(p.sock()); err == nil {
			b, _ := os.ReadFile(p.sock() + ".lock")
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0
}

func (p *proj) stopServer() {
	c := client{full: bins.full, env: p.env}
	sock, _, err := c.socketPath()
	if err != nil {
		return
	}
	b, err := os.ReadFile(sock + ".lock")
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// written is what the server process has written so far (/proc/PID/io):
// it grows when the server runs a hook, which appends to the log.
func written(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no wchar in /proc/PID/io")
	return 0
}

// events runs one session through the gate: its start, the person's prompt,
// a risky command (refused), a harmless one, and two stops (refused: the
// loop is not done).
func events(p *proj) []result {
	rm := func(s string) string { return strings.Replace(s, `"echo hello"`, `"rm -rf /tmp/x"`, 1) }
	var out []result
	for _, e := range []struct {
		name string
		edit func(string) string
	}{{"SessionStart", nil}, {"UserPromptSubmit", nil}, {"PreToolUse", rm}, {"PreToolUse", nil}, {"Stop", nil}, {"Stop", nil}} {
		out = append(out, p.hook(e.name, p.payload(e.name, e.edit)))
	}
	return out
}

// The client answers every event as hook-loop itself does, the first from
// hook-loop in its place (no server yet; it starts one) and the rest from
// the server.
func TestServedHooksAnswerAsHookLoop(t *testing.T) {
	served := newProj(t)
	oneShot := newProj(t, Env+"=off")
	got, want := events(served), events(oneShot)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: served %+v, one-shot %+v", i, got[i], want[i])
		}
	}
	if !strings.Contains(want[2].out, `"decision":"block"`) || !strings.Contains(want[4].out, `"decision":"block"`) {
		t.Fatalf("the gate did not hold: risky command %+v, stop %+v", want[2], want[4])
	}
	if _, err := os.Stat(filepath.Join(oneShot.state, "hookd")); err == nil {
		t.Errorf("%s=off started a server", Env)
	}
	pid := served.serverPID()
	if pid == 0 {
		t.Fatal("no server came up")
	}
	// The server, not hook-loop in the client's place, answers now.
	before := written(t, pid)
	r := served.hook("Stop", served.payload("Stop", nil))
	if !strings.Contains(r.out, `"decision":"block"`) {
		t.Fatalf("stop: %+v", r)
	}
	if after := written(t, pid); after <= before {
		t.Errorf("the server wrote nothing for a stop (wchar %d → %d): it did not answer it", before, after)
	}
}

// A socket at the server's name whose process is not hook-loop's binary is
// not trusted: it could answer anything (here: allow every stop). It may be
// sent the event — the client checks the server while the server works —
// but never the environment, which may hold what the harness keeps from the
// agent's commands: only its digest.
func TestImpostorServerIsNotTrusted(t *testing.T) {
	const secret = "sk-not-for-the-agent-7f3a91"
	p := newProj(t, "SOME_API_KEY="+secret)
	first := p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil))
	if first.code != 0 {
		t.Fatalf("prompt: %+v", first)
	}
	// The first hook started a server in the background: let it come up
	// before stopping it, or it could take the socket after the stop.
	if p.serverPID() == 0 {
		t.Fatal("no server came up")
	}
	p.stopServer()
	sock := p.sock()
	waitGone(t, sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	asked := make(chan []byte, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var raw bytes.Buffer
				req, err := wire.ReadRequest(io.TeeReader(c, &raw))
				asked <- raw.Bytes()
				if err != nil {
					return
				}
				c.Write([]byte{wire.Started})
				c.Write(wire.AppendAnswer(nil, wire.Answer{Status: wire.Answered}))
				_ = req
			}()
		}
	}()
	r := p.hook("Stop", p.payload("Stop", nil))
	if !strings.Contains(r.out, `"decision":"block"`) {
		t.Errorf("stop with an impostor at the socket: %+v (want refused, as hook-loop answers)", r)
	}
	if !strings.Contains(r.errOut, "does not run") {
		t.Errorf("stderr %q does not say why the server was not trusted", r.errOut)
	}
	select {
	case raw := <-asked:
		if bytes.Contains(raw, []byte(secret)) || bytes.Contains(raw, []byte("HOOK_LOOP_STATE_DIR")) {
			t.Errorf("the impostor was sent the environment: %q", raw)
		}
	case <-time.After(5 * time.Second):
		// Not sent at all is fine too.
	}
}

// A real hook-loop server confined otherwise than the hook — as one the
// sandboxed agent started would be — is not asked either; and a server
// refuses a client more confined than itself.
func TestConfinedPeersAreNotTrusted(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) not installed: cannot start a process with no_new_privs")
	}
	p := newProj(t)
	if r := p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil)); r.code != 0 {
		t.Fatalf("prompt: %+v", r)
	}
	// The first hook started a server in the background: let it come up
	// before stopping it, or it could take the socket after the stop.
	if p.serverPID() == 0 {
		t.Fatal("no server came up")
	}
	p.stopServer()
	sock := p.sock()
	waitGone(t, sock)
	srv := exec.Command(setpriv, "--no-new-privs", bins.full, serverArg, sock)
	srv.Env = p.env
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	if p.serverPID() != srv.Process.Pid {
		t.Fatal("the confined server did not come up")
	}
	before := written(t, srv.Process.Pid)
	r := p.hook("Stop", p.payload("Stop", nil))
	if !strings.Contains(r.out, `"decision":"block"`) || !strings.Contains(r.errOut, "confined otherwise") {
		t.Errorf("stop with a confined server: %+v", r)
	}
	// Its Started (one byte, sent before it checks the client) at most.
	if after := written(t, srv.Process.Pid); after > before+1 {
		t.Errorf("the confined server ran the hook (wchar %d → %d)", before, after)
	}
	srv.Process.Kill()
	srv.Wait()
	waitGone(t, sock)

	// The other way: an unconfined server, a client with no_new_privs. The
	// client, alike, would not ask it; asked all the same (wire by hand,
	// from a confined process), the server answers nothing.
	if r := p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil)); r.code != 0 {
		t.Fatalf("prompt: %+v", r)
	}
	pid := p.serverPID()
	if pid == 0 {
		t.Fatal("no server came up")
	}
	before = written(t, pid)
	req := wire.AppendRequest(nil, wire.Request{Harness: "codex", Args: []string{"--event", "Stop", "--config", filepath.Join(p.dir, "hook-loop.json")},
		Cwd: p.dir, Env: wire.EnvDigest(p.env), Stdin: p.payload("Stop", nil)})
	c := exec.Command(setpriv, "--no-new-privs", "python3", "-c",
		`import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
got=b""
try:
    s.sendall(sys.stdin.buffer.read())
    while True:
        b=s.recv(64)
        if not b: break
        got+=b
except (ConnectionResetError, BrokenPipeError):
    pass
print(got.decode("latin-1"))`, p.sock())
	c.Stdin = bytes.NewReader(req)
	if _, perr := exec.LookPath("python3"); perr != nil {
		t.Skip("python3 not installed: no confined raw client")
	}
	out, err := c.CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != "" && got != string(wire.Started) {
		t.Errorf("a confined client got an answer from the server: %q %v", out, err)
	}
	if after := written(t, pid); after > before+1 {
		t.Errorf("the server ran a confined client's hook (wchar %d → %d)", before, after)
	}
}

// A server that took the event and then died is not asked to run it again
// by hook-loop in the client's place (it may be in the log already): the
// event is answered as a failure that refuses the tool call.
func TestLostRequestIsRefusedNotRunTwice(t *testing.T) {
	p := newProj(t)
	mark := filepath.Join(t.TempDir(), "started")
	hooks := filepath.Join(t.TempDir(), "hooks.json")
	// The executor kills the server that runs it, mid-event: no race with
	// its 2 s budget, which a killer polling from outside could lose on a
	// busy machine (and then saw the tool call answered, not lost).
	if err := os.WriteFile(hooks, []byte(`{"hooks":[{"name":"killer","command":["sh","-c","touch `+mark+`; kill -9 $PPID; sleep 20"],"on":["tool_requested"],"timeoutSeconds":30}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil), "--hooks-config", hooks); r.code != 0 {
		t.Fatalf("prompt: %+v", r)
	}
	pid := p.serverPID()
	if pid == 0 {
		t.Fatal("no server came up")
	}
	done := make(chan result, 1)
	go func() { done <- p.hook("PreToolUse", p.payload("PreToolUse", nil), "--hooks-config", hooks) }()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the hook did not answer after its server died")
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the executor never ran in the server: %+v", r)
	}
	if alive(pid) {
		t.Fatalf("the server (pid %d) outlived its executor's kill", pid)
	}
	if !strings.Contains(r.out, `"decision":"block"`) || !strings.Contains(r.out, "refused this once") || !strings.Contains(r.errOut, "gave no answer to go by") {
		t.Errorf("tool call whose server died mid-event: %+v (want refused, saying why)", r)
	}
	// The server died before its write, and the event was not run again.
	if n := p.toolCallsLogged(); n != 0 {
		t.Errorf("the tool call is in the log %d times, want none", n)
	}
}

// toolCallsLogged counts the PreToolUse hooks the project's log holds.
func (p *proj) toolCallsLogged() int {
	log, _ := os.ReadFile(filepath.Join(p.dir, ".hook-loop", "events.jsonl"))
	return strings.Count(string(log), `"hook_event_name":"PreToolUse"`)
}

// An upgraded hook-loop is a new server: the old one is not asked.
func TestUpgradedBinaryGetsItsOwnServer(t *testing.T) {
	p := newProj(t)
	p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil))
	old := p.sock()
	if p.serverPID() == 0 {
		t.Fatal("no server came up")
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(bins.full, later, later); err != nil {
		t.Fatal(err)
	}
	if p.sock() == old {
		t.Fatal("the socket's name does not follow the binary")
	}
	p.hook("Stop", p.payload("Stop", nil))
	if p.serverPID() == 0 {
		t.Fatal("no server for the upgraded binary")
	}
}

func waitGone(t *testing.T, sock string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		// The server's lock is free once its process is gone; a killed
		// server leaves its socket behind.
		f, err := os.OpenFile(sock+".lock", os.O_RDWR|os.O_CREATE, 0o600)
		if err == nil {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
			f.Close()
			if err == nil {
				os.Remove(sock)
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server at %s did not go away", sock)
}

// Relative paths in a hook's arguments mean what they mean in the hook's
// working directory, served or not: the server runs each hook there.
func TestServedHookResolvesRelativePathsInItsDirectory(t *testing.T) {
	p := newProj(t)
	mark := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(p.dir, "hooks.json"), []byte(`{"hooks":[{"name":"count","command":["sh","-c","echo x >> `+mark+`"],"on":["tool_requested"],"timeoutSeconds":10}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil), "--hooks-config", "hooks.json")
	if p.serverPID() == 0 {
		t.Fatal("no server came up")
	}
	for range 2 {
		if r := p.hook("PreToolUse", p.payload("PreToolUse", nil), "--hooks-config", "hooks.json"); r.code != 0 || strings.Contains(r.errOut, "did not load") {
			t.Fatalf("tool call: %+v", r)
		}
	}
	b, _ := os.ReadFile(mark)
	if n := strings.Count(string(b), "x"); n != 2 {
		t.Errorf("the executor of a relative --hooks-config ran %d times for 2 tool calls", n)
	}
}

// --help is hook-loop's, printed without waiting for a stdin a person at a
// terminal does not give.
func TestHelpIsHookLoopsWithoutStdin(t *testing.T) {
	p := newProj(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // never written, never closed before the command ends
	cmd := exec.Command(bins.client, "codex-hook", "--help")
	cmd.Env, cmd.Stdin = p.env, pr
	done := make(chan []byte, 1)
	go func() { out, _ := cmd.CombinedOutput(); done <- out }()
	select {
	case out := <-done:
		if !strings.Contains(string(out), "USAGE") || !strings.Contains(string(out), "codex-hook") {
			t.Errorf("codex-hook --help: %s", out)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("codex-hook --help waited for stdin")
	}
	pr.Close()
}

// A state directory too deep for a socket's name: hook-loop answers every
// hook, quietly, as with the server off.
func TestNoSocketMeansOneShotQuietly(t *testing.T) {
	p := newProj(t)
	deep := filepath.Join(p.state, strings.Repeat("d", 100))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, kv := range p.env {
		if strings.HasPrefix(kv, stateDirEnv+"=") {
			p.env[i] = stateDirEnv + "=" + deep
		}
	}
	r := p.hook("Stop", p.payload("Stop", nil))
	if !strings.Contains(r.out, `"decision":"block"`) || r.errOut != "" {
		t.Errorf("stop: %+v (want refused by hook-loop, nothing on stderr)", r)
	}
	if _, err := os.Stat(filepath.Join(deep, "hookd")); err == nil {
		t.Error("a server was started for a socket it cannot name")
	}
}

// A server that does not start the hook in time (stopped here, as a busy or
// frozen one) is not waited on past startTimeout: hook-loop answers in the
// client's place, well inside the harness's hook timeout.
func TestStoppedServerIsNotWaitedOn(t *testing.T) {
	p := newProj(t)
	p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil))
	pid := p.serverPID()
	if pid == 0 {
		t.Fatal("no server came up")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	start := time.Now()
	r := p.hook("Stop", p.payload("Stop", nil))
	took := time.Since(start)
	if !strings.Contains(r.out, `"decision":"block"`) || !strings.Contains(r.errOut, "no answer within "+startTimeout.String()) {
		t.Errorf("stop with a stopped server: %+v", r)
	}
	if took < startTimeout || took > startTimeout+15*time.Second {
		t.Errorf("the hook answered after %v (want just past %v)", took, startTimeout)
	}
}

// A real server traced by someone (as one the agent attached a debugger
// to would be) gets the event — the client sends it before it checks the
// server — and runs it, but its answer is not trusted. It said it started
// the event, which may be in the log: the client does not run it again,
// and that one tool call is refused.
func TestTracedServerIsNotTrustedNorRunTwice(t *testing.T) {
	p := newProj(t)
	if r := p.hook("UserPromptSubmit", p.payload("UserPromptSubmit", nil)); r.code != 0 {
		t.Fatalf("prompt: %+v", r)
	}
	pid := p.serverPID()
	if pid == 0 {
		t.Fatal("no server came up")
	}
	traced := make(chan error, 1)
	go trace(pid, traced)
	if err := <-traced; err != nil {
		t.Skipf("cannot trace the server here: %v", err)
	}
	r := p.hook("PreToolUse", p.payload("PreToolUse", nil))
	if !strings.Contains(r.out, `"decision":"block"`) || !strings.Contains(r.out, "refused this once") || !strings.Contains(r.errOut, "traced") {
		t.Errorf("tool call with a traced server: %+v (want refused, saying why)", r)
	}
	// The traced server ran it; the client did not run it again. The client
	// answers as soon as it has Started, which an idle server says before
	// its peer check: the traced server may still be at work then.
	n := p.toolCallsLogged()
	for deadline := time.Now().Add(20 * time.Second); n == 0 && time.Now().Before(deadline); n = p.toolCallsLogged() {
		time.Sleep(20 * time.Millisecond)
	}
	if n != 1 {
		t.Errorf("the tool call is in the log %d times, want once", n)
	}
	p.stopServer() // ends the tracer's loop too
}

// trace attaches to pid as its tracer (its TracerPid is then this process)
// and keeps it running, passing on the signals it stops on, until it ends.
// ptrace requests must come from the thread that attached.
func trace(pid int, attached chan<- error) {
	runtime.LockOSThread()
	if err := syscall.PtraceAttach(pid); err != nil {
		attached <- err
		return
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil {
		attached <- err
		return
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		attached <- err
		return
	}
	attached <- nil
	for {
		if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil || ws.Exited() || ws.Signaled() {
			return
		}
		sig := 0
		if ws.Stopped() && ws.StopSignal() != syscall.SIGTRAP {
			sig = int(ws.StopSignal())
		}
		_ = syscall.PtraceCont(pid, sig)
	}
}

// A server that refuses this process closes before the request is in, and
// the send fails: the client says why it was refused (here: its process does
// not run hook-loop), not that a pipe broke — which it said when the server
// closed first, a race TestConfinedPeersAreNotTrusted lost now and then.
func TestRefusingServerIsNamedNotABrokenPipe(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(fds[1]) // the server hung up
	var sh syscall.Stat_t
	if err := syscall.Stat("/bin/sh", &sh); err != nil {
		t.Skip("no /bin/sh to stand for hook-loop")
	}
	c := &client{full: "/bin/sh", fullSt: &sh, sock: "test.sock", conn: wire.NewConn(fds[0])}
	defer c.close()
	_, sent, err := c.ask(nil, wire.Request{Harness: "codex", Stdin: []byte("{}")})
	if sent || err == nil || !strings.Contains(err.Error(), "does not run") {
		t.Errorf("sent %v, err %v: want the check's reason", sent, err)
	}
}

// alive reports whether pid runs (a zombie does not: the server's parent,
// once its client exited, need not reap it).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// A client that gives up waiting for Started stops reading first, so that
// a busy server that comes to its request after that cannot run it too: its
// Started fails (before, it went into a socket the client had not closed
// yet, and the server ran the event while hook-loop ran it in the client's
// place).
func TestGivingUpOnStartedCutsTheServerOff(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	client, server := wire.NewConn(fds[0]), wire.NewConn(fds[1])
	defer client.Close()
	defer server.Close()
	if err := client.SetReadTimeout(20 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := firstByte(client); !errors.Is(err, wire.ErrTimeout) {
		t.Fatalf("firstByte of a silent server: %v", err)
	}
	if err := server.Send([]byte{wire.Started}); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("the server's Started after the client gave up: %v, want EPIPE", err)
	}
}

// A peer that said Started and has ended by the time the client checks it
// may be the server that took the event and died: the event is lost —
// refused once — not run again in the client's place. (The listening
// process, whose pid the client's check reads, ends at once; a child it
// leaves keeps the connection, says Started and reads the request.)
func TestPeerGoneBeforeItsCheckIsNotRunTwice(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: no stand-in server")
	}
	p := newProj(t)
	sock := p.sock()
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := exec.Command("python3", "-c", `import os,socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
if os.fork():
    os._exit(0)
c,_=s.accept(); c.sendall(b"S")
c.settimeout(5)
try:
    while c.recv(65536): pass
except Exception:
    pass
time.sleep(5)`, sock)
	if err := srv.Run(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(sock) })
	r := p.hook("PreToolUse", p.payload("PreToolUse", nil))
	if !strings.Contains(r.out, `"decision":"block"`) || !strings.Contains(r.out, "refused this once") {
		t.Errorf("tool call whose server had gone before its check: %+v (want refused once, not run)", r)
	}
	if n := p.toolCallsLogged(); n != 0 {
		t.Errorf("the tool call is in the log %d times, want none", n)
	}
}
