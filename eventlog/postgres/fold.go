package postgres

import "github.com/hook-loop/hook-loop/eventlog"

// View is what the store keeps per session and per project so a hook reads one
// row instead of every event. It is stored as JSON, so a richer view type can
// replace it: change the type and fold, and bump the migrations so old rows are
// rebuilt (see rebuildViews).
type View = eventlog.Summary

// fold applies one event, whose log line hashes to lineHash, to a view. It is the
// store's only fold: Append, migrations and Migrate all come through here, so the
// views always equal a fold of the events.
func fold(v *View, e *eventlog.Event, lineHash string) {
	v.Apply(e, lineHash)
}

// chainHash is the hash a session's next event records as prev_hash: the same as
// the JSONL log's, so chains verify alike and Migrate copies lines unchanged.
func chainHash(line []byte) string { return eventlog.LineHash(line) }
