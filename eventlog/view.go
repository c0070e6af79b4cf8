package eventlog

import "github.com/hook-loop/hook-loop/eventlog/logline"

// A View is what a reader of the log needs to know about one session (or about
// the whole log) without re-reading it: a fold of its events, in log order. The
// log keeps one per session and one for the project, brings them up to date
// under its lock, and caches them as JSON in its index, so a view must survive
// a round trip through encoding/json and hold no references that Fold shares.
// What a view means belongs to its Folder's package, not to the log.
type View interface {
	// Fold folds one event into the view. For events read from the file the
	// payload holds only the Folder's PayloadKeys (see Folder), except where the
	// log had to decode it whole.
	Fold(e *Event)
}

// A Folder makes the views a Log keeps.
type Folder interface {
	// Name identifies the fold, version included: an index folded under another
	// name is not trusted and the log is folded again.
	Name() string
	// NewView returns an empty view, a pointer that Fold updates.
	NewView() View
	// PayloadKeys are the payload keys Fold reads. When the log's light parse
	// decodes all of them it is used to fold; otherwise lines are decoded whole.
	PayloadKeys() []string
}

// Head is what the log itself keeps per session: the number of its events and the
// hash of its last line, the head of its hash chain.
type Head struct {
	Events   int    `json:"events"`
	LastHash string `json:"last_hash"`
}

// entry is one session in the fold: its head and, when the log has a Folder, its
// view.
type entry struct {
	Head
	view View
}

// lightCovers reports whether the light parse decodes every key f reads.
func lightCovers(f Folder) bool {
	if f == nil {
		return true
	}
	for _, k := range f.PayloadKeys() {
		found := false
		for _, have := range logline.LightKeys() {
			found = found || have == k
		}
		if !found {
			return false
		}
	}
	return true
}
