// Package scripted is what the scripted mock model servers (messages for
// Claude Code, gemini for Gemini CLI) share: a server on 127.0.0.1 that
// records every request, and a script answering the agent loop's requests one
// step each. Each API's wire format stays in its own package.
package scripted

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/testkit/procs"
)

// Step is one answer of the scripted model: a tool call when Tool is set,
// else the text Text.
type Step struct {
	Tool  string         // tool name, e.g. "Bash", "run_shell_command"
	Input map[string]any // tool arguments
	Text  string         // text answer (when Tool is "")
}

// Text is a text-only step: the model's turn ends with this answer.
func Text(s string) Step { return Step{Text: s} }

// Script decides the model's answers; R is the mock's own request type.
type Script[R any] struct {
	// Steps answer the agent loop's requests in order.
	Steps []Step
	// Next, when set, answers the agent loop's requests after Steps run out;
	// it is given the request and the number of agent-loop requests before
	// it. When nil, the model answers "done".
	Next func(r *R, n int) Step
}

// Meta is what a mock records of every request; each mock's request type
// embeds it and reads its body in the API's own format.
type Meta struct {
	N      int       // 1-based arrival order
	Time   time.Time // arrival
	Method string
	Path   string
	Header http.Header // without the credentials
	Body   json.RawMessage
	// Kind is "main" (an agent-loop request answered from the script),
	// "side" (the harness's own requests: titles, classifiers),
	// "count_tokens", "embed" or "other".
	Kind string
	// Step is the answer a main request got.
	Step Step
}

// NewMeta is r as recorded: its body as JSON (a string when it is not
// JSON), its headers without the API key.
func NewMeta(r *http.Request, body []byte) Meta {
	req := Meta{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Kind: "other", Time: time.Now()}
	for _, h := range []string{"X-Api-Key", "Authorization", "X-Goog-Api-Key"} {
		req.Header.Del(h)
	}
	if json.Valid(body) {
		req.Body = json.RawMessage(body)
	} else if len(body) > 0 {
		req.Body, _ = json.Marshal(string(body))
	}
	return req
}

// Server is a running mock: the API's handler behind a loopback listener,
// recording requests of type R.
type Server[R any] struct {
	// URL is the base URL to give the harness.
	URL string

	srv    *http.Server
	script Script[R]
	meta   func(*R) *Meta

	mu       sync.Mutex
	requests []R
	main     int
}

// Start listens on 127.0.0.1 on a free port and serves handler; name says
// which API in errors, meta finds a request's Meta.
func Start[R any](name string, script Script[R], meta func(*R) *Meta, handler http.HandlerFunc) (*Server[R], error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mock %s: listen: %w", name, err)
	}
	s := &Server[R]{URL: "http://" + ln.Addr().String(), script: script, meta: meta}
	s.srv = &http.Server{Handler: handler}
	go s.srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close
	return s, nil
}

// Close stops the server.
func (s *Server[R]) Close() error { return s.srv.Close() }

// Requests returns a copy of every request received so far.
func (s *Server[R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]R(nil), s.requests...)
}

// MainRequests returns the agent-loop requests, in order.
func (s *Server[R]) MainRequests() []R {
	var out []R
	for _, r := range s.Requests() {
		if s.meta(&r).Kind == "main" {
			out = append(out, r)
		}
	}
	return out
}

// Record records r as it is.
func (s *Server[R]) Record(r R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meta(&r).N = len(s.requests) + 1
	s.requests = append(s.requests, r)
}

// Answer records r as an agent-loop request with the script's next step,
// or as a side request answered side, and returns r as recorded.
func (s *Server[R]) Answer(r R, main bool, side Step) R {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.meta(&r)
	m.N = len(s.requests) + 1
	if main {
		m.Kind = "main"
		m.Step = s.next(&r)
	} else {
		m.Kind = "side"
		m.Step = side
	}
	s.requests = append(s.requests, r)
	return r
}

// next picks the answer for an agent-loop request; s.mu is held.
func (s *Server[R]) next(r *R) Step {
	n := s.main
	s.main++
	if n < len(s.script.Steps) {
		return s.script.Steps[n]
	}
	if s.script.Next != nil {
		return s.script.Next(r, n)
	}
	return Text("done")
}

// Env is the environment that runs a harness against a mock and nothing else:
// a plain PATH, home (which isolates the harness's config and state), the
// API's own variables (api), and hook-loop's state directory and the e2e
// leftover check's marker when the test set them, so the hooks and the
// test's own reads agree on where the state lives.
func Env(home string, api ...string) []string {
	env := append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TERM=dumb", "LANG=C.UTF-8"}, api...)
	if d := os.Getenv("HOOK_LOOP_STATE_DIR"); d != "" {
		env = append(env, "HOOK_LOOP_STATE_DIR="+d)
	}
	if m := os.Getenv(procs.MarkerEnv); m != "" {
		env = append(env, procs.MarkerEnv+"="+m)
	}
	return env
}
