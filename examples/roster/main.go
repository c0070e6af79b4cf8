// Command roster is a lifecycle hook that refuses loop_start for a session that is
// not on a list: such a session is held (its tool calls and stop are refused
// with the roster's reason) rather than left ungated.
//
// The list comes from the entry's `with`: {"sessions": ["id", ...]} and/or
// {"file": "/path/to/roster.txt"} (one session id per line, # comments).
//
// As a command executor (one request on stdin, one answer on stdout):
//
//	{"name": "roster", "command": ["./roster"], "on": ["loop_start"], "required": true,
//	 "with": {"sessions": ["sess-1"]}}
//
// As an HTTP server: roster -http 127.0.0.1:8765 [-token-env ROSTER_TOKEN]
//
//	{"name": "roster", "url": "http://127.0.0.1:8765/", "tokenEnv": "ROSTER_TOKEN"}
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/sdk/hooks"
	"github.com/hook-loop/hook-loop/sdk/hooks/hookshttp"
)

type roster struct{}

func (roster) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	allowed, err := members(c.With)
	if err != nil {
		return err
	}
	if !allowed[c.SessionID] {
		c.Proceed = false
		c.Reason = fmt.Sprintf("session %s is not on the roster", c.SessionID)
	}
	return nil
}

// members reads the roster anew on every call: an edited file takes effect at the
// next session without restarting a server.
func members(with map[string]any) (map[string]bool, error) {
	out := map[string]bool{}
	if list, ok := with["sessions"].([]any); ok {
		for _, s := range list {
			if id, ok := s.(string); ok {
				out[id] = true
			}
		}
	}
	if path, ok := with["file"].(string); ok && path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("roster file: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, _, _ := strings.Cut(sc.Text(), "#")
			if line = strings.TrimSpace(line); line != "" {
				out[line] = true
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("roster file: %w", err)
		}
	}
	return out, nil
}

func main() {
	addr := flag.String("http", "", "serve over HTTP on this address (e.g. 127.0.0.1:8765) instead of answering one request on stdin")
	tokenEnv := flag.String("token-env", "", "require the bearer token held in this environment variable")
	flag.Parse()
	if *addr == "" {
		os.Exit(hooks.ServeStdio(roster{}))
	}
	opts := hookshttp.ServerOptions{}
	if *tokenEnv != "" {
		opts.BearerToken = os.Getenv(*tokenEnv)
		if opts.BearerToken == "" {
			log.Fatalf("roster: %s is not set", *tokenEnv)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("roster: %v", err)
	}
	// The bound address goes to stdout so a caller that asked for port 0 learns it.
	fmt.Printf("listening on http://%s/\n", ln.Addr())
	log.Fatal(http.Serve(ln, hookshttp.NewServer(roster{}, opts)))
}
