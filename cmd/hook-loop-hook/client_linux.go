// Command hook-loop-hook is the command installs write into Codex's and
// Claude Code's hooks. On Linux it is a small client of the hook server
// (internal/hookd): it connects to the server of its environment over a unix
// socket in the user's state directory, reads the event, sends it with its
// arguments, working directory and the digest of its environment, checks
// the server while the server runs the hook, and prints the answer. It links
// no more than a hello-world does, so a hook costs about a process start and
// a round trip; the server keeps the parsed loop and the log's fold between
// events.
//
// Wherever the server cannot answer, hook-loop (installed beside this binary)
// answers instead, in this process's place, with the event on its stdin:
// when no server runs (the client starts one for the next events), when the
// one at the socket is not to be trusted (not hook-loop's binary, confined
// otherwise than this process, or traced), when it declines, or when
// HOOK_LOOP_HOOKD=off. Once the server has taken the event, it is never run
// twice: a server that stops answering then is answered as a failed hook that
// refuses stops and tool calls (hookrun.Options.Lost). Every other command is
// hook-loop's too, handed on before stdin is read.
//
// On other systems hook-loop-hook is the lean one-shot hook (lean_other.go).
package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hook-loop/hook-loop/internal/hookd/wire"
	"github.com/hook-loop/hook-loop/project/basedir"
	"github.com/hook-loop/hook-loop/version"
	"golang.org/x/sys/unix"
)

// FullName is the full binary's name: hook-loop-hook hands it what the
// server does not answer.
const FullName = "hook-loop"

// Env turns the server off ("off", "0", "false", "no"): every hook is then
// hook-loop's, one process per event.
const Env = "HOOK_LOOP_HOOKD"

// Names the server side also uses: its hidden argument and the state
// directory's variable (internal/hookd, eventlog.StateDirEnv), spelled here
// so this binary links neither; a test keeps them equal.
const (
	serverArg   = "__hookd"
	stateDirEnv = "HOOK_LOOP_STATE_DIR"
)

// maxInput is hookrun.MaxInput: a larger stdin is handed on as read so far,
// and hook-loop refuses it as it refuses any input past its cap.
const maxInput = 8 << 20

// The waits on the server, inside the 30 s hook timeout installs give the
// harnesses, fallback included. startTimeout: until the server says it
// took the event (at once when idle; it runs one hook at a time, so a busy
// one says so when it comes to the request, and can make a hook queue);
// past it, the client stops reading (firstByte), so that the server
// can no longer start it, and hook-loop answers in its place, waiting on the
// log's lock as any concurrent hook does (5 s), well within the rest.
// answerTimeout: from then to the answer, just short of the harness's
// timeout less the lost request's answer (which touches no log).
const (
	startTimeout           = 3 * time.Second
	sessionEndStartTimeout = 500 * time.Millisecond
	answerTimeout          = 26 * time.Second
)

func main() {
	os.Exit(run(proc{
		args: os.Args, env: os.Environ(), in: os.Stdin, out: os.Stdout, errOut: os.Stderr,
		exec: syscall.Exec, spawn: spawn,
	}))
}

// proc is what run takes from its process.
type proc struct {
	args        []string
	env         []string
	in          io.Reader
	out, errOut io.Writer
	// exec replaces the process; it returns only on failure. Its stdin is
	// fd 0, which run has set to the event when it read it.
	exec func(path string, argv, envv []string) error
	// spawn starts the server in the background.
	spawn func(path string, argv, envv []string) error
}

func run(p proc) int {
	args := p.args
	if len(args) == 2 {
		switch args[1] {
		case "--version", "-v":
			io.WriteString(p.out, FullName+" version "+version.String()+"\n")
			return 0
		case "--build":
			// What an install compares with its own build before it writes this
			// binary into a harness's hooks.
			io.WriteString(p.out, version.Build()+"\n")
			return 0
		}
	}
	full, fullSt, fullErr := fullBinary()
	name, isHook := "", len(args) > 1 && strings.HasSuffix(args[1], "-hook")
	if isHook {
		name = strings.TrimSuffix(args[1], "-hook")
	}
	if !isHook || off(p.env) || asksHelp(args[2:]) || fullErr != nil {
		return p.handOn(full, fullErr, slices.DeleteFunc(slices.Clone(p.env), isLost), nil, false)
	}
	// Connect before reading the event: the server wakes, takes the
	// connection and checks this process while the event is read. The
	// socket's name reads the environment as it came (a lost event's mark,
	// which the copy below drops, is no variable the server compares), so
	// the copy waits until after the connection.
	c := client{full: full, fullSt: fullSt, env: p.env}
	dialErr := c.dial()
	defer c.close()
	env := slices.DeleteFunc(slices.Clone(p.env), isLost)
	c.env = env
	input, err := readInput(p.in)
	if err != nil {
		// hook-loop reports an unreadable stdin as it does its own.
		return p.handOn(full, nil, env, input, true)
	}
	cwd, _ := os.Getwd()
	a, sent, err := c.ask(dialErr, wire.Request{Harness: name, Args: args[2:], Cwd: cwd, Stdin: input})
	switch {
	case err == nil && a.Status == wire.Answered:
		if len(a.Stdout) > 0 {
			p.out.Write(a.Stdout)
		}
		if len(a.Stderr) > 0 {
			p.errOut.Write(a.Stderr)
		}
		return int(a.Exit)
	case sent:
		// The server took the event and did not answer: it may be in the log.
		return p.handOn(full, nil, append(env, wire.LostEnv+"="+oneLine(err)), input, true)
	case errors.Is(err, errNoServer):
		if c.sock != "" {
			_ = p.startServer(full, c.sock, env)
		}
	case errors.Is(err, errNoSocket):
		// A lasting property of this environment, not news at every event.
	case err != nil:
		io.WriteString(p.errOut, "hook-loop-hook: "+oneLine(err)+"; hook-loop answers this event itself\n")
	}
	return p.handOn(full, nil, env, input, true)
}

// handOn runs hook-loop in this process's place with the same arguments and
// env, and input on its stdin when withInput (else stdin unread).
func (p proc) handOn(full string, fullErr error, env []string, input []byte, withInput bool) int {
	if fullErr == nil && withInput {
		fullErr = p.setStdin(input)
	}
	if fullErr == nil {
		fullErr = p.exec(full, append([]string{full}, p.args[1:]...), env)
	}
	io.WriteString(p.errOut, "hook-loop-hook: the rest is "+FullName+"'s, which could not be started: "+oneLine(fullErr)+"\n")
	// Exit 2 is a refusal for the harnesses that honour it (a stop, a tool
	// call): a gate whose binary is missing must not open.
	return 2
}

// setStdin puts input on fd 0 (a memfd, else an unlinked temporary file),
// where hook-loop will read it as the harness wrote it.
func (p proc) setStdin(input []byte) error {
	var f *os.File
	if fd, err := unix.MemfdCreate("hook-loop-stdin", 0); err == nil {
		f = os.NewFile(uintptr(fd), "stdin")
	} else {
		var err error
		if f, err = os.CreateTemp("", "hook-loop-stdin"); err != nil {
			return err
		}
		os.Remove(f.Name())
	}
	defer f.Close()
	if _, err := f.Write(input); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return syscall.Dup3(int(f.Fd()), 0, 0)
}

func (p proc) startServer(full, sock string, env []string) error {
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		return err
	}
	return p.spawn(full, []string{full, serverArg, sock}, env)
}

// spawn starts path detached: its own session, no stdio, the root as its
// working directory, so it outlives the hook and holds none of the
// harness's pipes.
func spawn(path string, argv, envv []string) error {
	// syscall's open, not os's: no runtime poller for one descriptor.
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(null)
	_, err = syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: "/", Env: envv,
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null)},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	return err
}

func readInput(in io.Reader) ([]byte, error) {
	if in == nil {
		return nil, nil
	}
	data := make([]byte, 0, 4<<10)
	lr := &io.LimitedReader{R: in, N: maxInput + 1}
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}

// asksHelp: help is hook-loop's to print, before any stdin is read (a
// person typing the command has none to give).
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "help":
			return true
		}
	}
	return false
}

func off(env []string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(env, Env))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

func isLost(kv string) bool { return strings.HasPrefix(kv, wire.LostEnv+"=") }

func getenv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

func oneLine(err error) string {
	if err == nil {
		return "no error"
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// fullBinary is hook-loop beside this binary, and what stat says of it (the
// socket's name and the server's check need its identity). On Linux
// os.Executable is /proc/self/exe's target, its links already resolved.
func fullBinary() (string, *syscall.Stat_t, error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	full := filepath.Join(filepath.Dir(self), FullName)
	var st syscall.Stat_t
	if err := syscall.Stat(full, &st); err != nil {
		return "", nil, &os.PathError{Op: "stat", Path: full, Err: err}
	}
	return full, &st, nil
}

// stateDir is eventlog.StateDir read from env.
func stateDir(env []string) string {
	if d := getenv(env, stateDirEnv); d != "" {
		return d
	}
	return filepath.Join(basedir.StateHome(), "hook-loop")
}
