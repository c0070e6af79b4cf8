// Package board serves a local web page that shows every session of a project
// live — its loop's diagram with the current state, its timeline, what it waits
// for — and lets a person approve, reject, pause, resume or cancel it. The server
// listens on loopback only and answers only requests that carry its random token.
package board

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/board/diagram"
	"github.com/hook-loop/hook-loop/fleet"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/nudge"
	"github.com/hook-loop/hook-loop/operator"
	"github.com/hook-loop/hook-loop/overview"
)

//go:embed assets
var assets embed.FS

// pageTmpl is parsed on first use, not at init: every hook process links the
// board and must not pay for its templates.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"svg":   func(s string) template.HTML { return template.HTML(s) }, // drawn by package diagram, which escapes every name
		"clock": overview.Clock,
	}).ParseFS(assets, "assets/*.tmpl"))
})

const cookieName = "hook_loop_board"

// Server is one board.
type Server struct {
	Watcher  *overview.Watcher
	Controls Controls
	Project  string // shown in the title
	Token    string // required on every request; New makes one
	// Fleet, set by NewAll instead of Watcher, is every project's board.
	Fleet *fleet.Fleet
	// OnChange, when set, is called after every change the board follows
	// (`board --all` wakes its nudges with it).
	OnChange func()

	mu       sync.Mutex
	svgCache map[string]string
	subs     map[chan struct{}]bool
	nudges   map[chan nudge.Nudge]bool
}

// New returns a board over w with a fresh random token.
func New(w *overview.Watcher, c Controls, project string) (*Server, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("board token: %w", err)
	}
	return &Server{Watcher: w, Controls: c, Project: project, Token: hex.EncodeToString(b),
		svgCache: map[string]string{}, subs: map[chan struct{}]bool{}}, nil
}

// Listen opens the board's socket. Any address that is not loopback is refused:
// the board can act on sessions, and its token travels in a URL.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--addr %q: the board listens on loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	return net.Listen("tcp", addr)
}

// URL is the address a person opens, token included.
func (s *Server) URL(l net.Listener) string {
	return "http://" + l.Addr().String() + "/?token=" + s.Token
}

// Serve runs the board on l until ctx ends, following the log for changes.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 2)
	if s.Fleet != nil {
		go func() { errc <- s.Fleet.Run(ctx, s.notify) }()
	} else {
		go func() { errc <- s.Watcher.Run(ctx, s.notify) }()
	}
	go func() { errc <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			srv.Close()
			return err
		}
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	return nil
}

// notify wakes every event stream.
func (s *Server) notify() {
	if s.OnChange != nil {
		s.OnChange()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.subs {
		select {
		case c <- struct{}{}:
		default: // already has a wake-up pending
		}
	}
}

// Handler is the board's HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /api/view", s.view)
	mux.HandleFunc("GET /api/sessions", s.sessionsJSON)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("POST /api/sessions/{id}/{action}", s.act)
	mux.HandleFunc("POST /api/projects/{project}/sessions/{id}/{action}", s.act)
	return s.guard(mux)
}

// guard admits a request only with the token (query, header or cookie) and, for
// anything that changes state, only from the board's own page.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		if !loopbackHost(r.Host) {
			// A DNS name rebound to 127.0.0.1 gets nothing, token or not.
			http.Error(w, "forbidden: the board answers only to a loopback host name", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost {
			// The header token cannot be sent cross-site without a CORS preflight
			// the board never answers; the Origin and Fetch Metadata checks refuse
			// a cross-site form even before that.
			if !s.tokenOK(r.Header.Get("X-Board-Token")) || !sameOrigin(r) {
				http.Error(w, "forbidden", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" && s.tokenOK(q) {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && s.tokenOK(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, "forbidden: open the URL hook-loop board printed (it carries the token)", http.StatusForbidden)
	})
}

// loopbackHost reports whether a request's Host names this machine's loopback.
func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.Token)) == 1
}

// sameOrigin accepts a request its browser marks as same-origin, or whose Origin
// is the board's own host.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return r.Header.Get("Sec-Fetch-Site") != "" // a browser that says where it comes from
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// pageData is what the page shows.
type pageData struct {
	// All is a board over every project: Groups instead of Sessions.
	All      bool
	Groups   []groupView
	Project  string
	Token    string
	Loop     string
	Sessions []sessionView
	Waiting  []sessionView
	Warning  string
}

type sessionView struct {
	overview.Session
	// ProjectKey and ProjectName say whose session it is on a board over
	// every project ("" otherwise); the buttons post to the project's route.
	ProjectKey  string
	ProjectName string
	SVG         string
	Actions     []string
	Recent      []overview.Entry // the timeline, newest first
}

// Data collects what the page shows, from the watcher's incremental state.
func (s *Server) Data() pageData {
	if s.Fleet != nil {
		return s.allData()
	}
	d := pageData{Project: s.Project, Token: s.Token, Warning: s.Watcher.Warning()}
	def := s.Watcher.Definition()
	if def != nil {
		d.Loop = def.ID
	}
	for _, ss := range s.Watcher.Sessions() {
		v := sessionView{Session: ss, Actions: actionsFor(ss, def), Recent: make([]overview.Entry, len(ss.Timeline))}
		for i, e := range ss.Timeline {
			v.Recent[len(ss.Timeline)-1-i] = e
		}
		if def != nil {
			v.SVG = s.diagram("", def, ss.State)
		}
		d.Sessions = append(d.Sessions, v)
		if ss.Waiting {
			d.Waiting = append(d.Waiting, v)
		}
	}
	return d
}

// diagram is the loop def of project (a key, "" for the board's one) drawn
// with state highlighted; a loop has few states, so each drawing is made once.
func (s *Server) diagram(project string, def *loopdsl.Definition, state string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := project + "\x00" + state
	if svg, ok := s.svgCache[key]; ok {
		return svg
	}
	svg := diagram.SVG(def, state)
	s.svgCache[key] = svg
	return svg
}

// actionsFor lists the buttons that make sense for a session now.
// Approve and reject are offered where the loop names their events
// (loop.approval).
func actionsFor(ss overview.Session, def *loopdsl.Definition) []string {
	if ss.Outcome != "" || ss.Terminal {
		return nil
	}
	var out []string
	if a, ok := def.ApprovalIn(ss.State); ss.Waiting && ok {
		out = append(out, "approve")
		if a.Reject != "" {
			out = append(out, "reject")
		}
	}
	if ss.Paused {
		out = append(out, "resume")
	} else {
		out = append(out, "pause")
	}
	return append(out, "cancel")
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTmpl().ExecuteTemplate(w, "page.tmpl", s.Data()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// view is the part of the page that changes, for the script to swap in.
func (s *Server) view(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := pageTmpl().ExecuteTemplate(w, "view", s.Data()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) sessionsJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.Fleet != nil {
		_ = json.NewEncoder(w).Encode(s.allSessions())
		return
	}
	sessions := s.Watcher.Sessions()
	if sessions == nil {
		sessions = []overview.Session{}
	}
	_ = json.NewEncoder(w).Encode(sessions)
}

// events streams one "change" event whenever the log grows, plus a comment now
// and then so proxies and the browser keep the stream open.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	c := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, c)
		s.mu.Unlock()
	}()
	fmt.Fprintf(w, "retry: 1000\nevent: hello\ndata: %d\n\n", s.version())
	fl.Flush()
	nudges := s.subscribeNudges()
	defer s.unsubscribeNudges(nudges)
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c:
			fmt.Fprintf(w, "event: change\ndata: %d\n\n", s.version())
		case n := <-nudges:
			b, _ := json.Marshal(n)
			fmt.Fprintf(w, "event: nudge\ndata: %s\n\n", b)
		case <-keep.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		}
		fl.Flush()
	}
}

func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	if !knownAction(action) {
		http.Error(w, "unknown action "+action, http.StatusNotFound)
		return
	}
	id := r.PathValue("id")
	watcher, controls := s.Watcher, s.Controls
	if key := r.PathValue("project"); key != "" || s.Fleet != nil {
		p := (*fleet.Project)(nil)
		if s.Fleet != nil {
			p = s.Fleet.Project(key)
		}
		if p == nil {
			http.Error(w, "no project "+key, http.StatusNotFound)
			return
		}
		watcher, controls = p.Watcher, p.Controls
	}
	ss, ok := watcher.Session(id)
	if !ok {
		http.Error(w, "no session "+id, http.StatusNotFound)
		return
	}
	if (action == "approve" || action == "reject") && !ss.Waiting {
		http.Error(w, "session "+ss.Short+" is not waiting for a person", http.StatusConflict)
		return
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength != 0 {
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil {
			http.Error(w, "body: expected {\"reason\": string}: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	if err := controls.Do(r.Context(), id, action, strings.TrimSpace(body.Reason)); err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, operator.ErrRefused) {
			code = http.StatusConflict
		}
		http.Error(w, err.Error(), code)
		return
	}
	// Show the effect at once rather than at the next poll.
	if changed, _ := watcher.Poll(); changed {
		s.notify()
	}
	w.WriteHeader(http.StatusNoContent)
}
