package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
)

// fileProject is a project on the approval_gate loop whose hooks run
// in-process as Codex would run them, with the log in the project.
type fileProject struct{ dir string }

func newFileProject(t *testing.T) fileProject {
	t.Helper()
	dir := t.TempDir()
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return fileProject{dir}
}

func (p fileProject) hook(t *testing.T, sid, event, fields string) {
	t.Helper()
	cwd, _ := json.Marshal(p.dir)
	in := `{"session_id":"` + sid + `","turn_id":"t1","cwd":` + string(cwd) + `,"hook_event_name":"` + event +
		`","model":"m","permission_mode":"default"` + fields + `}`
	var out, errOut bytes.Buffer
	if code := Main([]string{"hook-loop", "codex-hook", "--config", filepath.Join(p.dir, "hook-loop.json")}, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("codex-hook %s %s: exit %d: %s%s", sid, event, code, out.String(), errOut.String())
	}
}

func (p fileProject) start(t *testing.T, sid string) {
	p.hook(t, sid, "SessionStart", `,"source":"startup"`)
	p.hook(t, sid, "UserPromptSubmit", `,"prompt":"draft a proposal for the cache"`)
}

func (p fileProject) askApproval(t *testing.T, sid string) {
	p.hook(t, sid, "Stop", `,"stop_hook_active":false,"last_assistant_message":"The draft is in PROPOSAL.md. APPROVAL REQUESTED"`)
}

func (p fileProject) refuseStop(t *testing.T, sid string) {
	p.hook(t, sid, "Stop", `,"stop_hook_active":false,"last_assistant_message":"I think I am done"`)
}

// allWorld isolates the user's state and config directories.
func allWorld(t *testing.T) (configDir string) {
	t.Helper()
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	configDir = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", configDir)
	t.Setenv("HOOK_LOOP_STORE", "")
	t.Setenv("HOOK_LOOP_CONFIG", "")
	return configDir
}

func TestStatusAllListsLiveSessionsOfEveryProject(t *testing.T) {
	allWorld(t)
	a, b := newFileProject(t), newFileProject(t)
	a.start(t, "sess-a-waits")
	a.askApproval(t, "sess-a-waits")
	b.start(t, "sess-b-works")
	b.refuseStop(t, "sess-b-works")
	b.refuseStop(t, "sess-b-works")
	var out, errOut bytes.Buffer
	if code := Main([]string{"hook-loop", "status", "--all"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("status --all: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("status --all printed %d lines, want a header and 2:\n%s%s", len(lines), out.String(), errOut.String())
	}
	first, second := strings.Fields(lines[1]), strings.Fields(lines[2])
	// project, session, harness, state, waiting, refused stops, last event
	if first[0] != a.dir || first[1] != "sess-a-waits" || first[2] != "codex" || first[3] != "pending_approval" || first[4] != "YES" {
		t.Errorf("waiting session's line: %q", lines[1])
	}
	if second[0] != b.dir || second[3] != "drafting" || second[4] != "-" || second[5] != "2" {
		t.Errorf("working session's line: %q", lines[2])
	}

	// A project whose log is gone leaves the registry.
	if err := os.RemoveAll(filepath.Join(b.dir, ".hook-loop")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main([]string{"hook-loop", "status", "--all", "--json"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("status --all --json: exit %d %s", code, errOut.String())
	}
	var got []liveLine
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 1 || got[0].Project != a.dir || !got[0].Waiting {
		t.Fatalf("after b's log went: %s (%v)", out.String(), err)
	}
}

// notify sends each nudge once to the desktop notifier (a stand-in on PATH
// recording its arguments) and to the webhook (a local HTTP server).
func TestNotifyNudgesDesktopAndWebhook(t *testing.T) {
	cfgDir := allWorld(t)
	var mu sync.Mutex
	var posted []map[string]any
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		posted = append(posted, m)
		mu.Unlock()
	}))
	defer hook.Close()
	if err := os.MkdirAll(filepath.Join(cfgDir, "hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"notify": {"webhook": "` + hook.URL + `/nudge", "refused_stops": 2}}`
	if err := os.WriteFile(filepath.Join(cfgDir, "hook-loop", "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	record := filepath.Join(bin, "args")
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte("#!/bin/sh\nprintf '%s|' \"$@\" >> "+record+"\necho >> "+record+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	a, b := newFileProject(t), newFileProject(t)
	a.start(t, "sess-a")
	b.start(t, "sess-b")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	out, errOut := &syncBuffer{}, &syncBuffer{}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- runNotify(&NotifyOptions{IO: &IOStreams{Out: out, ErrOut: errOut}, ctx: runCtx, ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("notify: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(errOut.String(), "watching 2 project(s); nudges go to "+filepath.Join(bin, "notify-send")+", "+hook.URL+"/nudge") {
		t.Errorf("notify's first line: %s", errOut.String())
	}
	a.askApproval(t, "sess-a")
	b.refuseStop(t, "sess-b")
	b.refuseStop(t, "sess-b")
	waitFor(t, ctx, out, "session sess-a in "+a.dir+" on ")
	waitFor(t, ctx, out, "was refused 2 stops in a row")
	var ctl bytes.Buffer
	if code := Main([]string{"hook-loop", "pause", "--session", "sess-b", "--config", filepath.Join(b.dir, "hook-loop.json"), "--event-log", filepath.Join(b.dir, ".hook-loop", "events.jsonl")}, nil, &ctl, &ctl); code != 0 {
		t.Fatalf("pause: %s", ctl.String())
	}
	waitFor(t, ctx, out, "was paused in drafting")
	stop()
	if err := <-done; err != nil {
		t.Fatalf("notify: %v", err)
	}
	args, _ := os.ReadFile(record)
	calls := strings.Split(strings.TrimSpace(string(args)), "\n")
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 3 || len(posted) != 3 {
		t.Fatalf("%d notify-send calls, %d webhook posts, want 3 each:\n%s\n%v\nnotify said:\n%s", len(calls), len(posted), args, posted, out.String())
	}
	// Nudges of one look come in project order: find the waiting one.
	var waitingCall string
	for _, c := range calls {
		if strings.Contains(c, "|hook-loop: waiting|") {
			waitingCall = c
		}
	}
	if !strings.HasPrefix(waitingCall, "--app-name=hook-loop|--urgency=critical|hook-loop: waiting|hook-loop: codex session sess-a in "+a.dir) {
		t.Errorf("notify-send's calls: %q", calls)
	}
	kinds := map[any]bool{}
	for _, p := range posted {
		kinds[p["kind"]] = true
		if txt, _ := p["text"].(string); !strings.HasPrefix(txt, "hook-loop: codex session ") {
			t.Errorf("webhook text %q", txt)
		}
	}
	if !kinds["waiting"] || !kinds["refused"] || !kinds["paused"] {
		t.Errorf("webhook kinds %v", kinds)
	}
}
