package lifecycle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/sdk/hooks"
	"github.com/hook-loop/hook-loop/testkit/procs"
)

// The test binary doubles as a command executor: run as `<test binary> executor
// MODE`, it reads one request on stdin and answers like a real (well or badly
// behaved) hook would. Each mode is a real subprocess on the real wire.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "executor" && os.Args[2] == "serve-pid" {
		os.Exit(hooks.ServeStdio(pidGo{}))
	}
	if len(os.Args) >= 3 && os.Args[1] == "executor" {
		os.Exit(executor(os.Args[2]))
	}
	// Every executor and example server a test starts
	// inherits the mark; none may outlive the tests.
	marker, err := procs.Mark()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if !procs.Check(os.Stderr, "lifecycle tests", procs.Match{Env: marker}, 5*time.Second) && code == 0 {
		code = 1
	}
	if exampleDir != "" {
		os.RemoveAll(exampleDir)
	}
	os.Exit(code)
}

// pidGo refuses every loop start with its process id, as the Python pidHook
// does: a Go command executor served with hooks.ServeStdio.
type pidGo struct{}

func (pidGo) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	c.Proceed, c.Reason = false, strconv.Itoa(os.Getpid())
	return nil
}

// tagger appends its `with.tag` to every text decision it sees, so a chain of
// them shows who saw what.
type tagger struct{}

func (tagger) SessionStart(_ context.Context, c *hooks.SessionStartContext) error {
	tag, _ := c.With["tag"].(string)
	c.Context += "|" + tag
	return nil
}

func (tagger) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	if v, ok := c.With["proceed"].(bool); ok {
		c.Proceed = v
		c.Reason, _ = c.With["reason"].(string)
	}
	return nil
}

func executor(mode string) int {
	in, _ := io.ReadAll(os.Stdin)
	var req struct {
		ID     int64          `json:"id"`
		Params map[string]any `json:"params"`
	}
	_ = json.Unmarshal(in, &req)
	answer := func(result string) int {
		fmt.Printf(`{"jsonrpc":"2.0","id":%d,"result":%s}`+"\n", req.ID, result)
		return 0
	}
	switch mode {
	case "tag":
		return hooks.ServeIO(context.Background(), tagger{}, bytes.NewReader(in), os.Stdout)
	case "null":
		return answer("null")
	case "wrong-type":
		return answer(`{"proceed":"yes"}`)
	case "unknown-key":
		return answer(`{"proceed":false,"colour":"red"}`)
	case "fact-and-decision":
		return answer(`{"session_id":"forged","proceed":false,"reason":"facts are ignored"}`)
	case "error-member":
		fmt.Printf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"roster service down"}}`, req.ID)
		return 0
	case "bad-id":
		fmt.Printf(`{"jsonrpc":"2.0","id":%d,"result":null}`, req.ID+100)
		return 0
	case "not-json":
		fmt.Println("hello, I am not JSON")
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "boom: cannot reach the roster")
		return 3
	case "silent":
		return 0
	case "hang":
		// Start a grandchild too: the deadline must take the whole group down.
		with, _ := req.Params["with"].(map[string]any)
		child := exec.Command("sleep", "3600")
		_ = child.Start()
		if dir, ok := with["pids"].(string); ok && child.Process != nil {
			_ = os.WriteFile(filepath.Join(dir, "pids"), []byte(fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)), 0o644)
		}
		time.Sleep(time.Hour)
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown executor mode %q\n", mode)
	return 2
}

// self is the argv that runs this test binary as an executor in mode.
func self(mode string) []string { return []string{os.Args[0], "executor", mode} }

var (
	exampleDir  string
	exampleOut  []byte
	exampleErr  error
	exampleOnce sync.Once
)

// example builds every examples/ program once (one go build) and returns the
// named binary's path; the test skips when no Go toolchain is on PATH.
func example(t *testing.T, name string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("building the examples needs the go command on PATH")
	}
	exampleOnce.Do(func() {
		exampleDir, exampleErr = os.MkdirTemp("", "hook-loop-examples-")
		if exampleErr != nil {
			return
		}
		cmd := exec.Command(goBin, "build", "-o", exampleDir+string(filepath.Separator), "./examples/...")
		cmd.Dir = ".."
		exampleOut, exampleErr = cmd.CombinedOutput()
	})
	if exampleErr != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", exampleErr, exampleOut)
	}
	p := filepath.Join(exampleDir, name)
	if runtime.GOOS == "windows" {
		p += ".exe"
	}
	return p
}

// alive reports whether pid still exists (and is not a zombie we reaped).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// Field 3 is the state; Z is a zombie, which is as good as dead.
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' {
			return i+2 < len(b) && b[i+2] != 'Z'
		}
	}
	return true
}
