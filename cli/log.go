package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hook-loop/hook-loop/diag/suggest"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/follow"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/urfave/cli/v2"
)

// LogOptions are the flags of log and log verify.
type LogOptions struct {
	IO       *IOStreams
	WorkDir  string
	Getenv   func(string) string // nil: os.Getenv
	eventLog string
	store    string
	session  string
	types    string
	json     bool
	follow   bool
	// ctx ends --follow; nil: until Ctrl-C.
	ctx context.Context
}

// NewCmdLog builds `log` and `log verify`; runF replaces both run functions in tests.
func NewCmdLog(f *Factory, runF func(*LogOptions) error) *cli.Command {
	opts := &LogOptions{}
	vopts := &LogOptions{}
	logFlag := func(dst *string) cli.Flag {
		return eventLogFlag(dst)
	}
	return &cli.Command{
		Name:      "log",
		Usage:     "print the event log readably, one event per line",
		ArgsUsage: " ",
		Description: "Columns: time (UTC), session (shortest unique tail of its id), state, event type,\n" +
			"actor, and what happened. Lines that are not events (a torn last line after a\n" +
			"crash, say) are skipped with a warning on stderr. --json prints the lines as stored.",
		Flags: []cli.Flag{
			logFlag(&opts.eventLog), storeFlag(&opts.store),
			&cli.StringFlag{Name: "session", Usage: "only session `ID` (the whole id, or its start or end as shown)", Destination: &opts.session},
			&cli.StringFlag{Name: "type", Usage: "only events of `TYPE` (comma-separated list)", Destination: &opts.types},
			&cli.BoolFlag{Name: "json", Usage: "print the matching lines as stored (JSON lines)", Destination: &opts.json},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing events as they are appended, until Ctrl-C (a rotated or recreated log is read again from its start)", Destination: &opts.follow},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: log takes no arguments (got %q; did you mean 'log verify'?)", c.Args().First())
			}
			opts.IO, opts.WorkDir, opts.Getenv = f.IOStreams, f.Cwd(), f.Getenv
			return run(runF, runLog, opts)
		},
		Subcommands: []*cli.Command{{
			Name:      "verify",
			Usage:     "check every session's hash chain and report the first broken line",
			ArgsUsage: " ",
			Description: "Each event records the hash of the previous event line of its session\n" +
				"(prev_hash). An edited, deleted, inserted or copied event breaks the chain at\n" +
				"the first event that no longer follows its predecessor. Exit 0 when every\n" +
				"chain is intact, 1 at the first break.",
			Flags: []cli.Flag{logFlag(&vopts.eventLog), storeFlag(&vopts.store)},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return exitf(2, "usage: log verify takes no arguments (got %q)", c.Args().First())
				}
				vopts.IO, vopts.WorkDir, vopts.Getenv = f.IOStreams, f.Cwd(), f.Getenv
				return run(runF, runLogVerify, vopts)
			},
		}},
	}
}

// open opens the event log (openReadLog) when it is there; a missing log is not
// an error, it means nothing was recorded yet (l is nil then).
func (o *LogOptions) open() (readLog, error) {
	l, err := openReadLog(o.WorkDir, o.eventLog, o.store, o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	ok, err := l.Exists()
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	if !ok {
		fmt.Fprintf(o.IO.ErrOut, "no events (no log at %s)\n", l.Where())
		return nil, nil
	}
	return l, nil
}

func runLog(o *LogOptions) error {
	l, err := o.open()
	if l == nil {
		return err
	}
	defer l.Close()
	path := l.Where()
	warn := func(w string) { fmt.Fprintln(o.IO.ErrOut, "warning: "+w) }

	types := map[string]bool{}
	for _, t := range strings.Split(o.types, ",") {
		if t = strings.TrimSpace(t); t != "" {
			types[t] = true
		}
	}
	// The index knows every session: it gives the short names and the ids a
	// --session is matched against without a second pass over the log.
	var ids []string
	if err := l.View(func(tx viewTx) error { ids = tx.SessionIDs(); return nil }); err != nil {
		return fmt.Errorf("log: %w", err)
	}
	exact := slices.Contains(ids, o.session)
	sessionOK := func(id string) bool {
		if o.session == "" || id == o.session {
			return true
		}
		if exact {
			// An exact id wins over the ids it is the start or end of.
			return false
		}
		s := strings.TrimPrefix(o.session, "…")
		return len(s) >= 4 && (strings.HasPrefix(id, s) || strings.HasSuffix(id, s))
	}
	if o.session != "" && !o.follow && !slices.ContainsFunc(ids, sessionOK) {
		return exitf(1, "log: no session %q in %s%s", o.session, path, suggest.Hint(o.session, ids))
	}
	seen := map[string]bool{}
	matched := 0
	match := func(e *eventlog.Event) bool {
		if !sessionOK(e.SessionID) {
			return false
		}
		seen[e.EventType] = true
		if len(types) > 0 && !types[e.EventType] {
			return false
		}
		matched++
		return true
	}

	if o.follow {
		return logFollow(o, l, ids, match)
	}
	if o.json {
		err = wrapLogErr(l.ScanRaw(warn, func(_ int, raw []byte, e eventlog.Event) error {
			if !match(&e) {
				return nil
			}
			_, err := o.IO.Out.Write(append(raw[:len(raw):len(raw)], '\n'))
			return err
		}))
	} else {
		format := lineFormatter(ids)
		err = wrapLogErr(l.Scan(warn, func(_ int, e eventlog.Event) error {
			if !match(&e) {
				return nil
			}
			_, err := io.WriteString(o.IO.Out, format(&e))
			return err
		}))
	}
	if err != nil || matched > 0 || len(types) == 0 {
		return err
	}
	return noTypeMatch(path, types, seen)
}

// noTypeMatch is log's answer when --type matched nothing: which types the
// (selected part of the) log holds, and the closest to each one asked for.
func noTypeMatch(path string, types, seen map[string]bool) error {
	var asked, have []string
	for t := range types {
		asked = append(asked, t)
	}
	for t := range seen {
		have = append(have, t)
	}
	sort.Strings(asked)
	sort.Strings(have)
	hints := ""
	for _, t := range asked {
		hints += suggest.Hint(t, have)
	}
	return exitf(1, "log: no events of type %s in %s%s (types there: %s)", strings.Join(asked, ","), path, hints, strings.Join(have, ", "))
}

// lineFormatter returns the readable form of an event, one line with its newline.
// ids are every session of the log (the index knows them: it gives the short
// names without a second pass over the log).
func lineFormatter(ids []string) func(e *eventlog.Event) string {
	short := overview.ShortIDs(ids)
	width := 0
	for _, s := range short {
		width = max(width, utf8.RuneCountInString(s))
	}
	return func(e *eventlog.Event) string {
		sid, ok := short[e.SessionID]
		if !ok { // appended after the View
			sid = e.SessionID
		}
		return fmt.Sprintf("%-19s  %s  %-14s  %-22s  %-9s  %s\n",
			displayTime(e.Timestamp), padRunes(sid, width), orDash(e.State), e.EventType, orDash(e.Actor), payloadSummary(e))
	}
}

// logFollow prints the log from its start and then every line appended, until
// the context ends.
func logFollow(o *LogOptions, l readLog, ids []string, match func(*eventlog.Event) bool) error {
	format := lineFormatter(ids)
	ctx, stop := untilInterrupt(o.ctx)
	defer stop()
	print := func(line []byte, e *eventlog.Event) error {
		if !match(e) {
			return nil
		}
		var err error
		if o.json {
			_, err = o.IO.Out.Write(append(line[:len(line):len(line)], '\n'))
		} else {
			_, err = io.WriteString(o.IO.Out, format(e))
		}
		return err
	}
	if db, ok := l.(dbLog); ok {
		// LISTEN/NOTIFY: each commit is announced; the events are read after it.
		err := db.follow(ctx, func(_ int, raw []byte, e eventlog.Event) error { return print(raw, &e) })
		if ctx.Err() != nil {
			return nil
		}
		return wrapLogErr(err)
	}
	fl := l.(fileLog)
	fw := follow.New(fl.Path(), 0)
	n := 0
	fw.OnReset = func() {
		n = 0
		fmt.Fprintf(o.IO.ErrOut, "note: %s was replaced or truncated; reading it from the start\n", fl.Path())
	}
	return wrapLogErr(fw.Run(ctx, func(line []byte) error {
		n++
		if len(bytes.TrimSpace(line)) == 0 || eventlog.IsCheckpoint(line) {
			// A checkpoint is the log's own bookkeeping, not an event.
			return nil
		}
		e, err := logline.Parse(line)
		if err != nil {
			fmt.Fprintf(o.IO.ErrOut, "warning: %s:%d: skipped: %v\n", fl.Path(), n, err)
			return nil
		}
		return print(line, &e)
	}))
}

func wrapLogErr(err error) error {
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	return nil
}

func runLogVerify(o *LogOptions) error {
	l, err := o.open()
	if l == nil {
		return err
	}
	defer l.Close()
	r, err := l.Verify()
	if err != nil {
		return fmt.Errorf("log verify: %w", err)
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(o.IO.ErrOut, "warning: "+w)
	}
	switch {
	case r.Legacy > 0 && r.KeyedAt > 0:
		fmt.Fprintf(o.IO.Out, "note: %d legacy unkeyed lines before line %d (written before hook-loop keyed its log; accepted as they were)\n", r.Legacy, r.KeyedAt)
	case r.Legacy > 0:
		fmt.Fprintf(o.IO.Out, "note: %d legacy unkeyed lines; the log has no keyed line yet (hook-loop keys it at its next append)\n", r.Legacy)
	}
	if r.Keyed {
		fmt.Fprintf(o.IO.Out, "note: MACs checked with the key %s\n", r.KeyPath)
	}
	for _, n := range r.Tampered {
		if n.Session == "" {
			// Not an event of a session (a forged checkpoint line).
			fmt.Fprintf(o.IO.Out, "tampered: line %d: %s\n", n.Line, n.Reason)
			continue
		}
		fmt.Fprintf(o.IO.Out, "tampered: line %d (session %s): %s\n", n.Line, n.Session, n.Reason)
	}
	if more := r.TamperedCount - len(r.Tampered); more > 0 {
		fmt.Fprintf(o.IO.Out, "tampered: %d more lines\n", more)
	}
	if r.BrokenLine != 0 {
		fmt.Fprintf(o.IO.Out, "broken: line %d (session %s): %s\n", r.BrokenLine, r.BrokenSession, r.Reason)
	}
	if !r.OK() {
		return exitf(1, "")
	}
	fmt.Fprintf(o.IO.Out, "ok: %s in %s, chain intact\n", count(r.Events, "event"), count(r.Sessions, "session"))
	return nil
}

func padRunes(s string, w int) string {
	if n := utf8.RuneCountInString(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// displayTime shows a timestamp in UTC to the second; one it cannot read is
// shown as written.
func displayTime(ts string) string { return overview.FormatTime(ts, "2006-01-02 15:04:05") }

// payloadSummary says in a few words what an event's payload holds.
func payloadSummary(e *eventlog.Event) string {
	p := e.Payload
	str := func(k string) string { return overview.PayloadString(p, k) }
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch e.EventType {
	case eventlog.TypeSessionInitialized:
		add(str("initial_state"))
	case eventlog.TypeStateTransitioned:
		add(str("from") + " → " + str("to"))
		if ev := str("event"); ev != "" {
			add("(" + ev + ")")
		}
	case eventlog.TypeTransitionRejected:
		add(str("from") + " ✗ " + str("event"))
		if r := str("reason"); r != "" {
			add(quoteShort(r, 80))
		}
	case eventlog.TypeStopRefused:
		if n := str("stop_blocks"); n != "" {
			add("#" + n)
		}
		msg := str("message")
		if msg == "" {
			msg = str("reason")
		}
		if msg == "" {
			if ms, ok := p["messages"].([]any); ok && len(ms) > 0 {
				msg, _ = ms[0].(string)
			}
		}
		add(quoteShort(msg, 80))
	case eventlog.TypeLoopOutcome:
		add(str("outcome"))
		if fs := str("final_state"); fs != "" {
			add("in " + fs)
		}
		if forced, _ := p["forced_by_harness"].(bool); forced {
			add("(forced by the harness)")
		}
	case eventlog.TypeWouldBlock:
		add("would have refused the " + str("kind") + " (" + str("mode") + " mode)")
		if c := str("command"); c != "" {
			add("$ " + shorten(oneLine(c), 60))
		}
		add(quoteShort(str("reason"), 80))
	case eventlog.TypeHookFired:
		add(str("hook_event_name"))
		add(str("tool_name"))
		if v := str("verdict"); v != "" {
			add("→ " + v)
		}
	default:
		if c := str("command"); c != "" {
			add("$ " + shorten(oneLine(c), 60))
		}
		if _, ok := p["exit_code"]; ok {
			if p["exit_code"] == nil {
				add("exit ?")
			} else {
				add("exit " + str("exit_code"))
			}
		}
		add(str("tool_name"))
		if r := str("reason"); r != "" {
			add(quoteShort(r, 80))
		}
		if len(parts) == 0 {
			add(scalarPairs(p, 3))
		}
	}
	return strings.Join(parts, " ")
}

// scalarPairs renders up to n scalar payload values as key=value, keys sorted.
func scalarPairs(p map[string]any, n int) string {
	keys := make([]string, 0, len(p))
	for k, v := range p {
		switch v.(type) {
		case string, float64, bool:
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for i, k := range keys {
		if i == n {
			out = append(out, "…")
			break
		}
		v := p[k]
		if s, ok := v.(string); ok {
			v = shorten(oneLine(s), 40)
		}
		out = append(out, fmt.Sprintf("%s=%v", k, v))
	}
	return strings.Join(out, " ")
}

func quoteShort(s string, n int) string {
	if s == "" {
		return ""
	}
	return "“" + shorten(oneLine(s), n) + "”"
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
