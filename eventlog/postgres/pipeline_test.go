//go:build unix

package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// Rows stored past the project view (written behind the store's back) are all
// folded, also when there are more than the opening batch reads; the session
// rows named by Expect come with the opening batch and read the same.
func TestOpeningBatchCatchUpAndExpect(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	ctx := context.Background()
	url := newDB(t, srv, "catchup")
	s := openStore(t, url, "p")
	if err := s.View(func(*testTx) error { return nil }); err != nil { // creates the schema
		t.Fatal(err)
	}
	n := catchUpLimit + 234
	for i := 1; i <= n; i++ {
		sid := fmt.Sprintf("s%d", i%3)
		line, err := encodeLine(&eventlog.Event{SchemaVersion: 1, EventID: fmt.Sprint(i), SessionID: sid, Timestamp: "t", EventType: "hook_fired", Payload: map[string]any{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.conn.Exec(ctx, `INSERT INTO hook_loop_events VALUES ('p', '', $1, $2, 'hook_fired', $3, $4)`, i, sid, logline.Hash(line), line); err != nil {
			t.Fatal(err)
		}
	}
	for _, expect := range [][]string{nil, {"s1", "nobody"}} {
		s := openStore(t, url, "p")
		s.Expect(expect...)
		var project, s1, nobody session.View
		if err := s.View(func(tx *testTx) error {
			project, s1, nobody = tx.Project(), tx.Session("s1"), tx.Session("nobody")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if project.Events != n || s1.Events != (n+2)/3 || nobody.Events != 0 {
			t.Fatalf("expect %q: project %d events, s1 %d, nobody %d; want %d, %d, 0", expect, project.Events, s1.Events, nobody.Events, n, (n+2)/3)
		}
	}
}
