package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/hook-loop/hook-loop/hook/serve"
	"github.com/hook-loop/hook-loop/loop/session"
)

// coprocess is a co-process served over pipes, one request at a time, so a
// test can act between two requests.
type coprocess struct {
	t       *testing.T
	dir     string
	in      *io.PipeWriter
	answers *bufio.Scanner
	done    chan error
	calls   int
	logs    *eventlog.Cache
}

func startCoprocess(t *testing.T) *coprocess {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the co-process keeps its log's fold only where it reads file times")
	}
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(loopFile), 0o644); err != nil {
		t.Fatal(err)
	}
	noHooks := filepath.Join(dir, "no-hooks.json")
	if err := os.WriteFile(noHooks, []byte(`{"hooks": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &coprocess{t: t, dir: dir, in: inW, answers: bufio.NewScanner(outR), done: make(chan error, 1), logs: eventlog.NewCache()}
	go func() {
		c.done <- serve.Serve(context.Background(), inR, outW, serve.Options{Adapter: opencodeAdapter, HooksConfig: noHooks, Cwd: dir, LogCache: c.logs})
		outW.Close()
	}()
	c.answers.Buffer(nil, 1<<20)
	c.answers.Scan() // hello
	t.Cleanup(func() {
		inW.Close()
		if err := <-c.done; err != nil {
			t.Error(err)
		}
	})
	return c
}

func (c *coprocess) logPath() string { return filepath.Join(c.dir, ".hook-loop", "events.jsonl") }

// toolCall sends one tool.execute.before of session s1 and returns the answer.
func (c *coprocess) toolCall() serve.Answer {
	c.t.Helper()
	c.calls++
	fmt.Fprintf(c.in, `{"id":%d,"event":"tool.execute.before","input":{"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s1","callID":"c%d"},"output":{"args":{"command":"ls"}}}}`+"\n", c.calls, c.calls)
	if !c.answers.Scan() {
		c.t.Fatalf("no answer to request %d", c.calls)
	}
	var a serve.Answer
	if err := json.Unmarshal(c.answers.Bytes(), &a); err != nil || a.Exit != 0 {
		c.t.Fatalf("answer %s", c.answers.Text())
	}
	return a
}

// oneShot runs a tool call of session s1 as a hook in another process would.
func (c *coprocess) oneShot() harness.Output {
	c.t.Helper()
	// Without the co-process's LogCache: nothing kept, as in another process.
	out := hook.New(full.Deps(hook.Deps{})).Run(context.Background(), hook.Request{Adapter: opencode.New(),
		Flags: hook.Flags{Event: "tool.execute.before", HooksConfig: filepath.Join(c.dir, "no-hooks.json")}, Cwd: c.dir,
		Stdin: strings.NewReader(`{"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s1","callID":"x"},"output":{"args":{"command":"ls"}}}`)})
	if out.Exit != 0 {
		c.t.Fatalf("one-shot hook: %d %s %s", out.Exit, out.Stdout, out.Stderr)
	}
	return out
}

// checkLog checks that the log holds events events of s1 and that every line
// is honoured: an event the co-process appended from a stale fold would not
// continue its session's chain.
func checkLog(t *testing.T, path string, events int) {
	t.Helper()
	l := session.Open(path)
	var head eventlog.Head
	var tampered int
	var ids []string
	if err := l.View(func(tx session.Tx) error {
		ids = tx.SessionIDs()
		tampered = tx.TamperedLines()
		if len(ids) == 1 {
			head = tx.Head(ids[0])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || head.Events != events || tampered != 0 {
		t.Fatalf("log: sessions %q, %d events (want %d), %d lines not honoured; warnings %q", ids, head.Events, events, tampered, l.Warnings())
	}
}

// A co-process serving many requests that nothing else interleaves with reads
// the log (index and tail) once.
func TestServeReadsTheLogOnce(t *testing.T) {
	c := startCoprocess(t)
	const n = 25
	for range n {
		if a := c.toolCall(); a.Stderr != "" {
			t.Fatalf("stderr %q", a.Stderr)
		}
	}
	if s := c.logs.Stats(c.logPath()); s != (eventlog.CacheStats{Reused: n - 1, Loaded: 1}) {
		t.Fatalf("%d requests: %+v, want the log read once", n, s)
	}
	checkLog(t, c.logPath(), n+2) // and the session's first event's two
}

// Whatever another process did to the log between two requests, the next
// request reads it again and answers as a one-shot hook would: the same
// warnings, and its event continues the chain the log now holds.
func TestServeNoticesOtherWriters(t *testing.T) {
	cases := []struct {
		name string
		// other acts between requests and returns the events of s1 the log
		// then holds.
		other func(c *coprocess) int
		warn  string // in the next answer's stderr, as a one-shot hook warns
	}{
		{"a one-shot hook of another process", func(c *coprocess) int {
			c.oneShot()
			return 5
		}, ""},
		{"a raw append", func(c *coprocess) int {
			b, _ := os.ReadFile(c.logPath())
			first, _, _ := strings.Cut(string(b), "\n")
			f, err := os.OpenFile(c.logPath(), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				c.t.Fatal(err)
			}
			fmt.Fprintln(f, first) // a replay: not honoured
			f.Close()
			return 4
		}, "not honoured"},
		{"truncated by a line", func(c *coprocess) int {
			b, _ := os.ReadFile(c.logPath())
			lines := strings.SplitAfter(string(b), "\n")
			if err := os.WriteFile(c.logPath(), []byte(strings.Join(lines[:len(lines)-2], "")), 0o644); err != nil {
				c.t.Fatal(err)
			}
			return 3
		}, "the log shrank"},
		{"replaced by a copy", func(c *coprocess) int {
			b, _ := os.ReadFile(c.logPath())
			tmp := c.logPath() + ".new"
			if err := os.WriteFile(tmp, b, 0o644); err != nil {
				c.t.Fatal(err)
			}
			if err := os.Rename(tmp, c.logPath()); err != nil {
				c.t.Fatal(err)
			}
			return 4
		}, "the log file was replaced"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := startCoprocess(t)
			c.toolCall() // the session's start and its tool call
			c.toolCall()
			events := tc.other(c)
			a := c.toolCall()
			if tc.warn == "" && a.Stderr != "" || !strings.Contains(a.Stderr, tc.warn) {
				t.Fatalf("stderr %q, want %q", a.Stderr, tc.warn)
			}
			if s := c.logs.Stats(c.logPath()); s.Loaded != 2 {
				t.Fatalf("stats %+v: the change was not noticed", s)
			}
			if tc.name == "a raw append" {
				// The replayed line is the log's; the chain goes on after it.
				l := session.Open(c.logPath())
				l.View(func(tx session.Tx) error {
					if n := tx.TamperedLines(); n != 1 {
						t.Errorf("%d lines not honoured, want the replay", n)
					}
					return nil
				})
				return
			}
			checkLog(t, c.logPath(), events+1)
		})
	}
}
