package hooks

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
)

// maxRequest bounds a request body; a context is a few kilobytes.
const maxRequest = 4 << 20

// EnvKeepAlive is set to "1" in the environment of an executor hook-loop keeps
// alive: it then answers one request per line until stdin closes.
const EnvKeepAlive = "HOOK_LOOP_KEEPALIVE"

// ServeStdio answers one request read from stdin on stdout: the whole life of a
// `command` executor. Kept alive by hook-loop ($HOOK_LOOP_KEEPALIVE=1) it
// answers one request per line instead, until stdin closes. It returns the
// exit status to use (0: answers were written).
func ServeStdio(handler any) int {
	if os.Getenv(EnvKeepAlive) == "1" {
		return ServeLines(context.Background(), handler, os.Stdin, os.Stdout)
	}
	return ServeIO(context.Background(), handler, os.Stdin, os.Stdout)
}

// ServeLines answers newline-delimited requests, one line each, until in ends.
func ServeLines(ctx context.Context, handler any, in io.Reader, out io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxRequest)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if _, err := out.Write(append(HandleRequest(ctx, handler, sc.Bytes()), '\n')); err != nil {
			return 1
		}
	}
	if sc.Err() != nil {
		return 1
	}
	return 0
}

// ServeIO is ServeStdio on explicit streams.
func ServeIO(ctx context.Context, handler any, in io.Reader, out io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	body, err := io.ReadAll(io.LimitReader(in, maxRequest))
	if err != nil {
		return 1
	}
	resp := HandleRequest(ctx, handler, body)
	if _, err := out.Write(append(resp, '\n')); err != nil {
		return 1
	}
	return 0
}

// ServerOptions configure a Server.
type ServerOptions struct {
	// BearerToken, when set, is required as "Authorization: Bearer <token>" on
	// every POST. Read it from the environment, never from a file in a checkout.
	BearerToken string
}

// Server serves a handler over HTTP: POST / takes one JSON-RPC request, GET
// /health answers 200 "ok". It is an http.Handler; run it with http.ListenAndServe
// (put TLS in front of it unless it listens on loopback).
type Server struct {
	handler any
	opts    ServerOptions
	mux     *http.ServeMux
}

// NewServer returns a Server for handler.
func NewServer(handler any, opts ServerOptions) *Server {
	s := &Server{handler: handler, opts: opts, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "ok\n")
	})
	s.mux.HandleFunc("POST /{$}", s.serveRPC)
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	if s.opts.BearerToken != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.BearerToken)) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
	if err != nil {
		http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(HandleRequest(r.Context(), s.handler, body))
}
