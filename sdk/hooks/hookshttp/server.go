// Package hookshttp serves a lifecycle hook over HTTP: the url executor's
// server half. It is apart from package hooks so that a command executor,
// started once per call, does not link net/http.
package hookshttp

import (
	"crypto/subtle"
	"io"
	"net/http"
	"strings"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, hooks.MaxRequest))
	if err != nil {
		http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(hooks.HandleRequest(r.Context(), s.handler, body))
}
