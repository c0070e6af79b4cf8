package e2e

// End to end through PostgreSQL: two real harnesses, Codex and Claude Code, in
// two checkouts of one repository share one scope-project loop kept in a
// throwaway PostgreSQL cluster, and drive it to done together.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/messages"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/responses"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
	"github.com/tidwall/sjson"
)

func TestCodexAndClaudeShareOneLoopThroughPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	shared := func(loop []byte) []byte {
		loop, _ = sjson.SetBytes(loop, "loop.scope", "project")
		// The first agent hands over before done: its second stop is let go.
		loop, _ = sjson.SetBytes(loop, "loop.max_stop_blocks", 1)
		return loop
	}

	// Codex plans and verifies, in its checkout; install writes --store.
	cx := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Patch: planPatch},
		{Command: "make test"},
		{Message: "Verified; handing over to my teammate."},
		{Message: "Handing over."},
		{Message: "Handing over."},
	}}, shared, "--store", srv.URL())
	git := exec.Command("git", "remote", "add", "origin", "git@github.com:acme/team.git")
	git.Dir = cx.dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(cx.dir, ".codex", "hooks.json")); !strings.Contains(string(b), "--store") {
		t.Fatalf("codex install --store did not write --store into the hooks:\n%s", b)
	}
	r := cx.exec(t, "Add a greeting feature")
	if r.exit != 0 {
		r.dump(t)
		t.Fatalf("codex exec exit %d", r.exit)
	}
	if _, err := os.Stat(projectLog(cx.dir)); err == nil {
		t.Errorf("codex's hooks wrote the JSONL log although the store is PostgreSQL")
	}

	// Claude Code finishes, in another checkout of the same repository; its
	// hooks find the store in $HOOK_LOOP_STORE.
	cl := newClaudeProject(t, shared)
	if err := os.MkdirAll(filepath.Join(cl.dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cl.dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/acme/team.git\n"))
	env := []string{"HOOK_LOOP_STORE=" + srv.URL(), eventlog.StateDirEnv + "=" + os.Getenv(eventlog.StateDirEnv)}
	cr := cl.run(t, messages.Script{Steps: []messages.Step{messages.Text("ALL STEPS PASS")}}, "Finish the greeting feature", env...)
	if cr.exit != 0 || cr.result["result"] != "ALL STEPS PASS" {
		t.Fatalf("claude exit %d, result %v", cr.exit, cr.result["result"])
	}

	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: "github.com/acme/team"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	if err := s.Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == eventlog.TypeStateTransitioned {
			got = append(got, e.Payload["from"].(string)+"->"+e.Payload["to"].(string))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := "backlog->planning, planning->executing, executing->verifying, verifying->done"; strings.Join(got, ", ") != want {
		t.Errorf("shared transitions %s, want %s", strings.Join(got, ", "), want)
	}
	if v, err := s.Verify(); err != nil || !v.OK() || v.Sessions != 2 {
		t.Errorf("Verify = %+v, %v; want two sessions, intact", v, err)
	}
	// status from either checkout shows both sessions, and the loop done.
	cmd := exec.Command(hookLoopBinary(t), "status")
	cmd.Dir = cl.dir
	cmd.Env = append(os.Environ(), "HOOK_LOOP_STORE="+srv.URL())
	out, err := cmd.CombinedOutput()
	st := string(out)
	t.Logf("hook-loop status:\n%s", st)
	if err != nil || strings.Count(st, "session") < 2 || !strings.Contains(st, "done") {
		t.Errorf("status does not show both sessions and the done loop: %v\n%s", err, st)
	}
}
