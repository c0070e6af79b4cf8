package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// checkout is one checkout of a project whose hooks keep the log in the
// team's store; each has its own state directory, as two machines would.
type checkout struct {
	dir, state string
}

func newCheckout(t *testing.T) checkout {
	t.Helper()
	c := checkout{dir: t.TempDir(), state: t.TempDir()}
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "hook-loop.json"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// hook runs a Codex hook in the checkout (its own state directory) and
// returns what it printed.
func (c checkout) hook(t *testing.T, sid, event, fields string) string {
	t.Helper()
	t.Setenv(eventlog.StateDirEnv, c.state)
	in, _ := json.Marshal(map[string]any{"session_id": sid, "turn_id": "t", "cwd": c.dir, "hook_event_name": event, "model": "m", "transcript_path": nil})
	in = append(in[:len(in)-1], []byte(fields+"}")...)
	var out, errOut bytes.Buffer
	if code := Main([]string{"hook-loop", "codex-hook", "--config", filepath.Join(c.dir, "hook-loop.json")}, bytes.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("codex-hook %s: exit %d\n%s%s", event, code, out.String(), errOut.String())
	}
	return out.String()
}

// Two checkouts of one project share the team's store. A board --all opened
// with the first checkout's state shows both sessions, marked with their
// checkout, follows the store (LISTEN/NOTIFY), and its approve moves the
// session running in the other checkout, whose next hook sees it approved.
func TestBoardAllTeamStoreAcrossCheckouts(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOOK_LOOP_STORE", srv.URL())
	t.Setenv("HOOK_LOOP_PROJECT", "acme/team")
	one, two := newCheckout(t), newCheckout(t)
	one.hook(t, "sess-one", "UserPromptSubmit", `,"prompt":"draft the proposal"`)
	// Machines of one team share the store's key (docs/postgres.md).
	keys, _ := filepath.Glob(filepath.Join(one.state, "keys", "*.key"))
	if len(keys) != 1 {
		t.Fatalf("keys after the first hook: %v", keys)
	}
	key, err := os.ReadFile(keys[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(two.state, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(two.state, "keys", filepath.Base(keys[0])), key, 0o600); err != nil {
		t.Fatal(err)
	}
	two.hook(t, "sess-two", "UserPromptSubmit", `,"prompt":"draft the proposal"`)
	two.hook(t, "sess-two", "Stop", `,"stop_hook_active":false,"last_assistant_message":"The draft is in PROPOSAL.md. APPROVAL REQUESTED"`)

	t.Setenv(eventlog.StateDirEnv, one.state) // the board runs on the first "machine"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := startBoard(t, ctx, &BoardOptions{all: true})
	type group struct {
		Project, Key string
		Store        bool
		Sessions     []struct {
			ID       string `json:"session_id"`
			State    string `json:"state"`
			Waiting  bool   `json:"waiting"`
			Machine  string `json:"machine"`
			Checkout string `json:"checkout"`
		}
	}
	groups := func() []group {
		t.Helper()
		var gs []group
		b.get(t, "/api/sessions", &gs)
		return gs
	}
	gs := groups()
	if len(gs) != 1 || gs[0].Project != "acme/team" || !gs[0].Store || len(gs[0].Sessions) != 2 {
		t.Fatalf("board --all over the store: %+v", gs)
	}
	host, _ := os.Hostname()
	byID := map[string]string{}
	for _, s := range gs[0].Sessions {
		if s.Machine != host {
			t.Errorf("session %s marked with machine %q, want %q", s.ID, s.Machine, host)
		}
		byID[s.ID] = s.Checkout + " " + s.State
	}
	if byID["sess-one"] != one.dir+" drafting" || byID["sess-two"] != two.dir+" pending_approval" {
		t.Fatalf("sessions by checkout and state: %v", byID)
	}

	// A commit from a checkout reaches the board's stream through the store.
	waitLine := b.events(t, ctx)
	waitLine("event: hello")
	one.hook(t, "sess-one", "Stop", `,"stop_hook_active":false,"last_assistant_message":"The draft is in PROPOSAL.md. APPROVAL REQUESTED"`)
	waitLine("event: change")

	// Approve, from this board, the session of the other checkout.
	b.post(t, "/api/projects/"+gs[0].Key+"/sessions/sess-two/approve")
	// The other checkout's next hook judges the session in its approved state.
	if got := two.hook(t, "sess-two", "Stop", `,"stop_hook_active":false,"last_assistant_message":"done"`); !strings.Contains(got, `is in state \"approved\"`) {
		t.Fatalf("after the approval from the other checkout, its next stop was answered: %s", got)
	}
	for _, s := range groups()[0].Sessions {
		if s.ID == "sess-two" && s.State != "approved" {
			t.Fatalf("sess-two in %q after approve, want approved", s.State)
		}
	}
	b.stop()
}
