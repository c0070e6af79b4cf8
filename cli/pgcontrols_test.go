package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// pgProject is a project whose hooks keep the log in a throwaway PostgreSQL
// (HOOK_LOOP_STORE), with the approval_gate loop and one session started by a
// real codex hook. It returns the project's directory and the store.
func pgProject(t *testing.T, projectID string) (string, *postgres.Store[session.View, *session.View]) {
	t.Helper()
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOOK_LOOP_STORE", srv.URL())
	t.Setenv("HOOK_LOOP_PROJECT", projectID)
	dir := t.TempDir()
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	in, _ := json.Marshal(map[string]any{"session_id": "pg-sess-1", "turn_id": "t", "cwd": dir, "hook_event_name": "UserPromptSubmit",
		"prompt": "draft the proposal", "model": "m", "transcript_path": nil})
	var out, errOut bytes.Buffer
	if code := Main([]string{"hook-loop", "codex-hook"}, bytes.NewReader(in), &out, &errOut); code != 0 || errOut.Len() > 0 {
		t.Fatalf("codex-hook: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: projectID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return dir, s
}

// storeEvents lists the event types the store holds for session sid.
func storeEvents(t *testing.T, s *postgres.Store[session.View, *session.View], sid string) []string {
	t.Helper()
	var types []string
	if err := s.Scan(nil, func(_ int, e eventlog.Event) error {
		if e.SessionID == sid {
			types = append(types, e.EventType)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return types
}

// With the store configured, a person's controls, reload and doctor act on the
// log the hooks write — the store — under its lock, never on a JSONL file.
func TestControlsReloadDoctorUseTheStore(t *testing.T) {
	dir, s := pgProject(t, "acme/controls")
	if st := sessionState(t, s, "pg-sess-1"); st != "drafting" {
		t.Fatalf("the hook left the session in %q, want drafting", st)
	}
	main := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main(append([]string{"hook-loop"}, args...), nil, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
		return out.String()
	}
	steps := []struct {
		args  []string
		state string // the session's state after
		typ   string // the event the step records
	}{
		{[]string{"pause", "--reason", "lunch"}, "drafting", eventlog.TypeOperatorPaused},
		{[]string{"resume"}, "drafting", eventlog.TypeOperatorResumed},
		{[]string{"advance", "approval_requested"}, "pending_approval", eventlog.TypeOperatorAdvanced},
		{[]string{"reject", "--reason", "too long"}, "rejected", eventlog.TypeOperatorRejected},
		{[]string{"advance", "--force", "revise"}, "drafting", eventlog.TypeOperatorAdvanced},
		{[]string{"reset", "--session", "pg-sess-1"}, "backlog", eventlog.TypeOperatorReset},
		{[]string{"advance", "draft_ready"}, "drafting", eventlog.TypeOperatorAdvanced},
		{[]string{"advance", "approval_requested"}, "pending_approval", eventlog.TypeOperatorAdvanced},
		{[]string{"approve"}, "approved", eventlog.TypeOperatorApproved},
		{[]string{"cancel", "--reason", "enough"}, "approved", eventlog.TypeOperatorCancelled},
	}
	for _, st := range steps {
		main(st.args...)
		types := storeEvents(t, s, "pg-sess-1")
		if !strings.Contains(strings.Join(types, " "), st.typ) {
			t.Fatalf("%v: no %s in the store: %v", st.args, st.typ, types)
		}
		if got := sessionState(t, s, "pg-sess-1"); got != st.state {
			t.Fatalf("%v: state %q in the store, want %q", st.args, got, st.state)
		}
	}
	if _, err := os.Stat(project.LogPath(dir)); err == nil {
		t.Fatalf("a JSONL log was written at %s though the hooks use the store", project.LogPath(dir))
	}

	// The loop file changes: doctor says so from the store, reload re-pins
	// the session in the store.
	main("reset", "--session", "pg-sess-1")
	cfg := filepath.Join(dir, "hook-loop.json")
	src, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, bytes.Replace(src, []byte("Describe what to draft"), []byte("Say what to draft"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	// The session notices the change at its next hook.
	in, _ := json.Marshal(map[string]any{"session_id": "pg-sess-1", "turn_id": "t", "cwd": dir, "hook_event_name": "PreToolUse",
		"model": "m", "transcript_path": nil, "tool_name": "Bash", "tool_use_id": "u", "tool_input": map[string]any{"command": "ls"}})
	var out, errOut bytes.Buffer
	Main([]string{"hook-loop", "codex-hook"}, bytes.NewReader(in), &out, &errOut)
	fs := sessionFindings(dir, nil)
	if len(fs) != 1 || !strings.Contains(fs[0].What, "session pg-sess-1: the loop file changed") {
		t.Fatalf("doctor's findings from the store: %+v", fs)
	}
	if got := main("reload"); !strings.Contains(got, "session pg-sess-1 is now judged by") {
		t.Fatalf("reload: %s", got)
	}
	if types := storeEvents(t, s, "pg-sess-1"); types[len(types)-1] != "loop_reloaded" {
		t.Fatalf("reload did not re-pin the session in the store: %v", types)
	}
	if fs := sessionFindings(dir, nil); len(fs) != 0 {
		t.Fatalf("doctor after reload: %+v", fs)
	}
	if _, err := os.Stat(project.LogPath(dir)); err == nil {
		t.Fatalf("a JSONL log was written at %s though the hooks use the store", project.LogPath(dir))
	}
	if r, err := s.Verify(); err != nil || !r.OK() {
		t.Fatalf("Verify = %+v, %v", r, err)
	}
}

func sessionState(t *testing.T, s *postgres.Store[session.View, *session.View], sid string) string {
	t.Helper()
	var st string
	if err := s.View(func(tx *pgTx) error { st = tx.Session(sid).State; return nil }); err != nil {
		t.Fatal(err)
	}
	return st
}

// Hooks installed with --store name the store only in their commands: the
// person's commands take the same --store (and refuse it with --event-log).
func TestStoreFlagNamesTheHooksStore(t *testing.T) {
	dir, s := pgProject(t, "acme/flag")
	url := os.Getenv("HOOK_LOOP_STORE")
	t.Setenv("HOOK_LOOP_STORE", "")
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"hook-loop"}, args...), nil, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := run("pause", "--store", url, "--reason", "lunch"); code != 0 || !strings.Contains(out, "paused session pg-sess-1") {
		t.Fatalf("pause --store: exit %d\n%s", code, out)
	}
	if types := storeEvents(t, s, "pg-sess-1"); types[len(types)-1] != eventlog.TypeOperatorPaused {
		t.Fatalf("pause --store did not reach the store: %v", types)
	}
	if code, out := run("status", "--store", url); code != 0 || !strings.Contains(out, "paused:        by the person: lunch") {
		t.Fatalf("status --store: exit %d\n%s", code, out)
	}
	if code, out := run("resume", "--store", url, "--event-log", filepath.Join(dir, "x.jsonl")); code != 2 || !strings.Contains(out, "--event-log and --store name two different logs") {
		t.Fatalf("--store with --event-log: exit %d\n%s", code, out)
	}
	// Without it the person's commands look for the JSONL file, and say so.
	if code, out := run("resume"); code != 1 || !strings.Contains(out, "no event log at") {
		t.Fatalf("resume without --store: exit %d\n%s", code, out)
	}
}
