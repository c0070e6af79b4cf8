package cli

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/hook-loop/hook-loop/overview"
	"golang.org/x/term"
)

// statusWatch shows every session and redraws as the log grows: the whole
// screen on a terminal, and on anything else (a file, a pipe, CI) only the
// sessions that changed, appended under a time line, so the output reads as a
// record.
func statusWatch(o *StatusOptions) error {
	if o.json {
		return exitf(2, "usage: status --watch does not take --json (use 'hook-loop log --follow --json' for a stream)")
	}
	w, l, _, _, err := watchedProject(o.WorkDir, o.eventLog, o.store, o.config, o.Getenv, func(s string) { fmt.Fprintln(o.IO.ErrOut, s) })
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	defer l.Close()
	ctx, stop := untilInterrupt(o.ctx)
	defer stop()
	tty := false
	if f, ok := o.IO.Out.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	shown := map[string]int{} // events count of each session when last printed
	draw := func() {
		var b bytes.Buffer
		sessions := w.Sessions()
		if o.sessionID != "" {
			sessions = only(sessions, o.sessionID)
		}
		if tty {
			b.WriteString("\x1b[H\x1b[2J")
			b.WriteString(watchHeader(len(sessions), time.Now()))
		}
		printed := 0
		for _, s := range sessions {
			if !tty && shown[s.ID] == s.Events {
				continue
			}
			shown[s.ID] = s.Events
			if !tty && printed == 0 {
				fmt.Fprintf(&b, "--- %s\n", time.Now().UTC().Format("2006-01-02 15:04:05"))
			}
			s.WriteText(&b)
			b.WriteByte('\n')
			printed++
		}
		if tty && len(sessions) == 0 {
			b.WriteString("no sessions yet; waiting for the first hook\n")
		}
		o.IO.Out.Write(b.Bytes())
	}
	draw()
	return w.Run(ctx, draw)
}

// only keeps the session named id (whole, or its short form).
func only(sessions []overview.Session, id string) []overview.Session {
	for _, s := range sessions {
		if s.ID == id || s.Short == id {
			return []overview.Session{s}
		}
	}
	return nil
}

// watchHeader is the first line of the terminal view of status --watch.
func watchHeader(sessions int, now time.Time) string {
	return fmt.Sprintf("hook-loop status --watch · %s · %s (Ctrl-C to stop)\n\n", count(sessions, "session"), now.Format("15:04:05"))
}
