package postgres

import (
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// ViewOf is what the store needs of the view type V it keeps per session and
// for the project, so a hook reads one row instead of every event: *V folds
// events (Append, migrations and Migrate all fold through it, so the views
// always equal a fold of the events), and V round-trips through
// encoding/json, the rows' format. What a view means belongs to its
// package (the loop's session.View), not to the store; a change of its shape
// bumps the migrations so old rows are rebuilt (see rebuildViews).
type ViewOf[V any] interface {
	*V
	eventlog.View
}

// chainHash is the hash a session's next event records as prev_hash: the same as
// the JSONL log's, so chains verify alike and Migrate copies lines unchanged.
func chainHash(line []byte) string { return logline.Hash(line) }
