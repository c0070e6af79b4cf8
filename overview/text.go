package overview

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// recentInText is how many timeline entries the text form shows per session.
const recentInText = 3

// WriteText writes s as a few lines for a terminal: what state it is in, what
// would move it on, what it waits for, and what happened last.
func (s Session) WriteText(w io.Writer) {
	head := "session " + s.Short
	if s.Harness != "" {
		head += " (" + s.Harness + ")"
	}
	head += "  " + s.State
	switch {
	case s.Waiting:
		head += "  — WAITING FOR YOU"
	case s.Outcome != "":
		head += "  — " + s.Outcome
		if s.Forced {
			head += " (forced by the harness)"
		}
	case s.Terminal:
		head += "  (terminal)"
	}
	if s.Paused {
		head += "  [paused]"
	}
	fmt.Fprintln(w, head)
	if s.Disarmed != "" {
		fmt.Fprintf(w, "  not gated:  %s\n", s.Disarmed)
	}
	if s.Cancelled != "" {
		fmt.Fprintf(w, "  not gated:  cancelled by the person (%s)\n", OneLine(s.Cancelled))
	}
	if s.WouldBlocks > 0 {
		fmt.Fprintf(w, "  would block: %d (last: %s)\n", s.WouldBlocks, OneLine(s.LastWouldBlock))
	}
	if s.Waiting {
		fmt.Fprintf(w, "  asks:       %s\n", OneLine(s.Question))
	}
	if s.Outcome == "" {
		for i, n := range s.Next {
			label := "  next:       "
			if i > 0 {
				label = "              "
			}
			fmt.Fprintln(w, label+n)
		}
	}
	fmt.Fprintf(w, "  evidence:   %d   refused stops: %d in a row   events: %d (last %s)\n",
		s.Evidence, s.StopBlocks, s.Events, Clock(s.LastEventAt))
	from := max(0, len(s.Timeline)-recentInText)
	for i, e := range s.Timeline[from:] {
		label := "  recent:     "
		if i > 0 {
			label = "              "
		}
		fmt.Fprintf(w, "%s%s %s\n", label, Clock(e.Time), OneLine(e.Text))
	}
}

// Clock shows a stored timestamp as its UTC time of day.
func Clock(ts string) string { return FormatTime(ts, "15:04:05") }

// FormatTime shows a stored timestamp in UTC with layout; one it cannot read is
// shown as written, a missing one as "-".
func FormatTime(ts, layout string) string {
	for _, in := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(in, ts); err == nil {
			return t.UTC().Format(layout)
		}
	}
	if ts == "" {
		return "-"
	}
	return ts
}

// OneLine folds text onto one line (runs of white space, newlines included,
// become one space): errors and reasons are shown one line each.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
