package nudge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/overview"
)

func kinds(ns []Nudge) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Kind)
	}
	return strings.Join(out, ",")
}

func TestDetectorKindsAndOncePerMinute(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	d := &Detector{Now: func() time.Time { return now }}
	s := overview.Session{ID: "s1", Short: "s1", Harness: "codex", State: "drafting"}
	d.Prime("p", []overview.Session{{ID: "old", State: "x", Waiting: true}})
	steps := []struct {
		change func()
		want   string
	}{
		{func() {}, ""},
		{func() { s.StopBlocks = 2 }, ""},
		{func() { s.StopBlocks = 3 }, Refused},
		{func() { s.StopBlocks = 4 }, ""}, // still the same run of refusals
		{func() { s.State, s.Waiting, s.StopBlocks = "pending_approval", true, 0 }, Waiting},
		{func() { s.Waiting = false }, ""},
		{func() { s.Waiting = true }, ""}, // again within the minute: kept back
		{func() { s.Waiting = false; now = now.Add(61 * time.Second) }, ""},
		{func() { s.Waiting = true }, Waiting}, // a minute later
		{func() { s.Paused = true }, Paused},
		{func() { s.Outcome, s.Cancelled = "cancelled", "wrong branch" }, Cancelled},
	}
	for i, st := range steps {
		st.change()
		got := d.Observe("p", []overview.Session{s, {ID: "old", State: "x", Waiting: true}})
		if kinds(got) != st.want {
			t.Fatalf("step %d: nudges %q, want %q (%+v)", i, kinds(got), st.want, got)
		}
	}
	// A new session that ends is "ended"; the text says where and what.
	got := d.Observe("p", []overview.Session{{ID: "s2", Short: "s2", State: "done", Outcome: "completed", Machine: "box"}})
	if kinds(got) != Ended || got[0].Text != "hook-loop: session s2 in p on box ended: completed in done" {
		t.Fatalf("ended: %+v", got)
	}
}

// The webhook posts JSON with a Slack-compatible "text" to a real local
// HTTP server.
func TestWebhookPostsText(t *testing.T) {
	got := make(chan map[string]any, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "want a JSON POST", http.StatusBadRequest)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- m
	}))
	defer srv.Close()
	n := Nudge{Kind: Waiting, Project: "/src/api", Session: "s1", Text: "hook-loop: session s1 in /src/api waits for you"}
	if err := (Webhook{URL: srv.URL + "/hook?secret=x"}).Send(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	m := <-got
	if m["text"] != n.Text || m["kind"] != Waiting || m["session_id"] != "s1" {
		t.Fatalf("posted %v", m)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }))
	defer bad.Close()
	err := (Webhook{URL: bad.URL + "/h?secret=x"}).Send(context.Background(), n)
	if err == nil || !strings.Contains(err.Error(), "500") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("a failing webhook: %v", err)
	}
}

// standIn puts a notify-send on PATH that records its arguments, one per line.
func standIn(t *testing.T) (record string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a shell-script stand-in")
	}
	dir := t.TempDir()
	record = filepath.Join(dir, "args")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + record + "; done\n"
	if err := os.WriteFile(filepath.Join(dir, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return record
}

func TestDesktopRunsNotifySend(t *testing.T) {
	record := standIn(t)
	d := FindDesktop("linux", nil)
	if d == nil {
		t.Fatal("notify-send on PATH was not found")
	}
	if err := d.Send(context.Background(), Nudge{Kind: Waiting, Text: `hook-loop: "s1" waits`}); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(record)
	if string(args) != "--app-name=hook-loop\n--urgency=critical\nhook-loop: waiting\nhook-loop: \"s1\" waits\n" {
		t.Fatalf("notify-send got:\n%s", args)
	}
	if FindDesktop("linux", func(string) (string, error) { return "", os.ErrNotExist }) != nil {
		t.Fatal("a desktop notifier without notify-send")
	}
	mac := FindDesktop("darwin", func(string) (string, error) { return "/usr/bin/osascript", nil })
	if a := mac.Args(Nudge{Kind: Paused, Text: `say "hi" \ bye`}); a[1] != `display notification "say \"hi\" \\ bye" with title "hook-loop: paused"` {
		t.Fatalf("osascript args %q", a)
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	c, err := LoadConfig(env)
	if err != nil || c.Webhook != "" || !c.Wants(Ended) {
		t.Fatalf("no config: %+v %v", c, err)
	}
	write := func(s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "hook-loop"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hook-loop", "config.json"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"notify": {"desktop": false, "webhook": "https://hooks.example/x", "refused_stops": 5, "kinds": ["waiting"]}}`)
	c, err = LoadConfig(env)
	if err != nil || c.RefusedStops != 5 || c.Wants(Ended) || !c.Wants(Waiting) || len(c.Senders(nil)) != 1 {
		t.Fatalf("config: %+v %v", c, err)
	}
	for _, bad := range []string{
		`{"notify": {"webhook": "http://hooks.example/x"}}`,
		`{"notify": {"kinds": ["sometimes"]}}`,
		`{"notify": {"desktp": true}}`,
	} {
		write(bad)
		if _, err := LoadConfig(env); err == nil || !strings.Contains(err.Error(), "config.json: notify") {
			t.Errorf("%s: error %v, want one naming the file and the key", bad, err)
		}
	}
}

// A notifier that leaves a child holding its output pipe does not keep Send
// (and so notify's Check) waiting for that child.
func TestDesktopSendDoesNotWaitForTheNotifiersChild(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell-script stand-in")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := "#!/bin/sh\nsleep 120 &\necho $! > " + pidFile + "\nexit 0\n"
	path := filepath.Join(dir, "notify-send")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			var pid int
			if _, err := fmt.Sscan(string(b), &pid); err == nil && pid > 0 {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
					_, _ = p.Wait()
				}
			}
		}
	})
	d := FindDesktop("linux", func(string) (string, error) { return path, nil })
	done := make(chan error, 1)
	go func() { done <- d.Send(context.Background(), Nudge{Kind: Waiting, Text: "x"}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
	case <-time.After(SendTimeout + 30*time.Second):
		t.Fatal("Send waited for the notifier's child")
	}
}
