package scaffold

import (
	"bytes"

	"github.com/rogpeppe/go-internal/diff"
)

// LineDiff is the unified diff (3 lines of context, "@@" hunks; patch -p0
// applies it) of the change from before to after: what a dry run shows and
// --write then does. A nil side is /dev/null (a file created or removed); ""
// when nothing changes.
func LineDiff(path string, before, after []byte) string {
	from, to := path, path
	if before == nil {
		from = "/dev/null"
	}
	if after == nil {
		to = "/dev/null"
	}
	d := diff.Diff(from, before, to, after)
	// The first line is "diff FROM TO", git's header, which patch does not need.
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return string(d)
}
