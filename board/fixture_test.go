package board_test

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/operator"
	"os"
	"path/filepath"
	"strings"
	"testing"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"

	"github.com/hook-loop/hook-loop/board"
	hlcli "github.com/hook-loop/hook-loop/cli"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/overview"
)

// project is a temporary project running the gallery's approval_gate loop.
type project struct {
	dir, config, log string
}

func newProject(t *testing.T) *project {
	t.Helper()
	dir := t.TempDir()
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	p := &project{dir: dir, config: filepath.Join(dir, "hook-loop.json"), log: filepath.Join(dir, ".hook-loop", "events.jsonl")}
	if err := os.WriteFile(p.config, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hook runs one real `hook-loop codex-hook` call in-process, as Codex would.
func (p *project) hook(t *testing.T, session, event, fields string) string {
	t.Helper()
	cwd, _ := json.Marshal(p.dir)
	in := `{"session_id":"` + session + `","turn_id":"t1","cwd":` + string(cwd) + `,"hook_event_name":"` + event +
		`","model":"m","permission_mode":"default"` + fields + `}`
	var out, errOut bytes.Buffer
	code := hlcli.Main([]string{"hook-loop", "codex-hook", "--config", p.config, "--event-log", p.log},
		strings.NewReader(in), &out, &errOut)
	if code != 0 {
		t.Fatalf("codex-hook %s %s: exit %d: %s%s", session, event, code, out.String(), errOut.String())
	}
	return out.String()
}

// start begins a session and opens its draft; with ask, it also asks for approval.
func (p *project) start(t *testing.T, session string) {
	p.hook(t, session, "SessionStart", `,"source":"startup"`)
	p.hook(t, session, "UserPromptSubmit", `,"prompt":"draft a proposal for the cache"`)
}

func (p *project) askApproval(t *testing.T, session string) {
	p.hook(t, session, "Stop", `,"stop_hook_active":false,"last_assistant_message":"The draft is in PROPOSAL.md. APPROVAL REQUESTED"`)
}

func (p *project) refuseStop(t *testing.T, session string) {
	p.hook(t, session, "Stop", `,"stop_hook_active":false,"last_assistant_message":"I think I am done"`)
}

// serve starts a board on a free loopback port until the test ends.
func (p *project) serve(t *testing.T) (*board.Server, string) {
	t.Helper()
	return p.serveWith(t, nil)
}

// serveWith is serve with the user's lifecycle hooks lc behind the buttons.
func (p *project) serveWith(t *testing.T, lc engine.Lifecycle) (*board.Server, string) {
	t.Helper()
	spec, _, err := loopdsl.Load(p.config)
	if err != nil {
		t.Fatal(err)
	}
	l := session.Open(p.log)
	w, err := overview.Open(overview.Options{Log: l, Spec: spec, Root: p.dir})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := board.New(w, operator.Controls{Log: operator.FileLog(l), Engine: &engine.Engine{Spec: spec, Root: p.dir, Lifecycle: lc}}, p.dir)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := board.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, srv.URL(ln)
}

// events returns the log's events of type typ.
func (p *project) events(t *testing.T, typ string) []eventlog.Event {
	t.Helper()
	var out []eventlog.Event
	err := session.Open(p.log).Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == typ {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func baseURL(u string) string { return u[:strings.Index(u, "/?")] }
