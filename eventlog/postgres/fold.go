package postgres

import (
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/session"
)

// View is what the store keeps per session and per project so a hook reads one
// row instead of every event: the loop's own session view, stored as JSON. A
// change of the view type bumps the migrations so old rows are rebuilt (see
// rebuildViews).
type View = session.View

// fold applies one event to a view. It is the store's only fold: Append,
// migrations and Migrate all come through here, so the views always equal a
// fold of the events.
func fold(v *View, e *eventlog.Event) { v.Fold(e) }

// chainHash is the hash a session's next event records as prev_hash: the same as
// the JSONL log's, so chains verify alike and Migrate copies lines unchanged.
func chainHash(line []byte) string { return eventlog.LineHash(line) }
