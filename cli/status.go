package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// StatusOptions are status's flags.
type StatusOptions struct {
	IO      *IOStreams
	WorkDir string
	Getenv  func(string) string // nil: os.Getenv
	projectLog
	sessionID string
	json      bool
	watch     bool
	all       bool
	// ctx ends --watch; nil: until Ctrl-C.
	ctx context.Context
}

// NewCmdStatus builds `status`; runF replaces the run function in tests.
func NewCmdStatus(f *Factory, runF func(*StatusOptions) error) *cli.Command {
	opts := &StatusOptions{}
	return &cli.Command{
		Name:      "status",
		Usage:     "show each session's loop state, what would advance it, evidence, refused stops and outcome",
		ArgsUsage: " ",
		Flags: append(opts.projectLog.flags(),
			&cli.StringFlag{Name: "session", Usage: "only session `ID`", Destination: &opts.sessionID},
			&cli.BoolFlag{Name: "json", Usage: "print JSON", Destination: &opts.json},
			&cli.BoolFlag{Name: "all", Usage: "one line per live session of every project whose hooks ran for you (and every project in the store)", Destination: &opts.all},
			&cli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: "keep showing every session, redrawn as events arrive, until Ctrl-C (append-only when not a terminal)", Destination: &opts.watch},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: status takes no arguments (got %q)", c.Args().First())
			}
			opts.IO, opts.WorkDir, opts.Getenv = f.IOStreams, f.Cwd(), f.Getenv
			return run(runF, runStatus, opts)
		},
	}
}

// sessionStatus is one session's line of `status`.
type sessionStatus struct {
	Session    string   `json:"session_id"`
	State      string   `json:"state"`
	Terminal   bool     `json:"terminal"`
	Next       []string `json:"next,omitempty"`
	Evidence   int      `json:"evidence"`
	StopBlocks int      `json:"stop_blocks"`
	Outcome    string   `json:"outcome,omitempty"`
	ForcedBy   string   `json:"forced_by,omitempty"`
	Disarmed   string   `json:"disarmed,omitempty"`
	// Pinned is the hash of the loop the session is judged by; LoopFile what
	// the loop file holds instead ("missing" or its hash), Tampered the first
	// line not honoured, Held why tool calls and stops are refused.
	Pinned      string `json:"pinned,omitempty"`
	LoopFile    string `json:"loop_file,omitempty"`
	Tampered    string `json:"tampered,omitempty"`
	Held        string `json:"held,omitempty"`
	Paused      bool   `json:"paused,omitempty"`
	PauseReason string `json:"pause_reason,omitempty"`
	Cancelled   string `json:"cancelled,omitempty"`
	// WouldBlocks counts what a warn- or audit-mode loop let through.
	WouldBlocks    int    `json:"would_blocks"`
	LastWouldBlock string `json:"last_would_block,omitempty"`
	Events         int    `json:"events"`
	LastEventAt    string `json:"last_event_at,omitempty"`
}

func runStatus(o *StatusOptions) error {
	if o.all {
		return statusAll(o)
	}
	if o.watch {
		return statusWatch(o)
	}
	root := project.Root(o.WorkDir)
	cfg := o.config
	if cfg == "" {
		cfg = project.ConfigPath(root)
	}
	log, err := openReadLog(o.WorkDir, o.eventLog, o.store, o.Getenv)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	defer log.Close()
	logPath := log.Where()
	if ok, err := log.Exists(); err != nil {
		return fmt.Errorf("status: %w", err)
	} else if !ok {
		fmt.Fprintf(o.IO.ErrOut, "no sessions (no event log at %s)\n", logPath)
		return nil
	}
	var eng *engine.Engine
	spec, _, loadErr := dsl.Load(cfg)
	if loadErr == nil {
		eng = &engine.Engine{Spec: spec, Root: root}
	} else if o.config != "" {
		return fmt.Errorf("status: %w", loadErr)
	}

	var rows []sessionStatus
	err = log.View(func(tx viewTx) error {
		for _, id := range tx.SessionIDs() {
			if o.sessionID != "" && id != o.sessionID {
				continue
			}
			s := session.Scoped(tx, id, eng != nil && spec.Definition.Scope == dsl.ScopeProject)
			rows = append(rows, describeSession(id, s, eng))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("status: read %s: %w", logPath, err)
	}
	for _, w := range log.Warnings() {
		fmt.Fprintln(o.IO.ErrOut, "warning: "+w)
	}
	if o.sessionID != "" && len(rows) == 0 {
		return exitf(1, "status: no session %q in %s", o.sessionID, logPath)
	}
	if o.json {
		enc := json.NewEncoder(o.IO.Out)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []sessionStatus{}
		}
		return enc.Encode(rows)
	}
	if loadErr != nil {
		fmt.Fprintf(o.IO.ErrOut, "note: loop file not loaded (%s); showing states without what advances them\n", oneLine(loadErr.Error()))
	}
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(o.IO.Out)
		}
		printSession(o.IO, r)
	}
	return nil
}

func describeSession(id string, s session.View, eng *engine.Engine) sessionStatus {
	r := sessionStatus{Session: id, State: s.State, Evidence: s.Evidence, StopBlocks: s.StopBlocks,
		Outcome: s.Outcome, Disarmed: s.Disarmed, Events: s.Events, LastEventAt: s.LastTimestamp,
		Pinned: s.Pinned, LoopFile: s.LoopFile, Tampered: s.Tampered, Held: s.Held,

		Paused: s.Paused, PauseReason: s.PauseReason, Cancelled: s.Cancelled,
		WouldBlocks: s.WouldBlocks, LastWouldBlock: s.LastWouldBlock}
	if s.OutcomeForced {
		r.ForcedBy = "harness"
	}
	if eng != nil {
		def := eng.Spec.Definition
		if r.State == "" {
			r.State = def.InitialState
		}
		r.Terminal = def.IsTerminal(r.State)
		for _, t := range def.Outgoing(r.State) {
			ways := eng.Spec.DescribeEmitters(t.Event)
			if c := def.PersonCommand(r.State, t.Event); c != "" {
				ways = append(ways, "a person's `"+c+"`")
			}
			line := t.Event + " → " + t.To
			if len(t.Guards) > 0 {
				line += " [" + strings.Join(t.Guards, ", ") + "]"
			}
			if len(ways) > 0 {
				line += " on " + strings.Join(ways, " or ")
			}
			r.Next = append(r.Next, line)
		}
	}
	return r
}

func printSession(s *IOStreams, r sessionStatus) {
	fmt.Fprintf(s.Out, "session %s\n", r.Session)
	state := r.State
	if r.Terminal {
		state += " (terminal)"
	}
	fmt.Fprintf(s.Out, "  state:         %s\n", state)
	if r.Disarmed != "" {
		fmt.Fprintf(s.Out, "  gated:         no — %s\n", r.Disarmed)
	}
	if r.Held != "" {
		fmt.Fprintf(s.Out, "  held:          %s — tool calls and stops refused until `hook-loop reload --session %s`\n", r.Held, r.Session)
	}
	if r.Pinned != "" {
		fmt.Fprintf(s.Out, "  loop:          pinned %.12s%s\n", r.Pinned, loopFileText(r))
	}
	if r.Tampered != "" {
		fmt.Fprintf(s.Out, "  tampered:      %s — lines hook-loop did not write are not honoured (`hook-loop log verify`)\n", r.Tampered)
	}
	if r.Cancelled != "" {
		fmt.Fprintf(s.Out, "  gated:         no — cancelled by the person (%s)\n", r.Cancelled)
	}
	if r.Paused {
		fmt.Fprintf(s.Out, "  paused:        by the person: %s\n", orNone(r.PauseReason))
	}
	for i, n := range r.Next {
		label := "  next:          "
		if i > 0 {
			label = "                 "
		}
		fmt.Fprintln(s.Out, label+n)
	}
	fmt.Fprintf(s.Out, "  evidence:      %d\n", r.Evidence)
	fmt.Fprintf(s.Out, "  refused stops: %d in a row\n", r.StopBlocks)
	if r.WouldBlocks > 0 {
		fmt.Fprintf(s.Out, "  would block:   %d (last: %s)\n", r.WouldBlocks, oneLine(r.LastWouldBlock))
	}
	fmt.Fprintf(s.Out, "  outcome:       %s\n", outcomeText(r))
	fmt.Fprintf(s.Out, "  events:        %d (last %s)\n", r.Events, r.LastEventAt)
}

func loopFileText(r sessionStatus) string {
	switch r.LoopFile {
	case "":
		return ""
	case "missing":
		return " — the loop file is gone or unreadable; the session keeps its pinned loop"
	}
	return fmt.Sprintf(" — the loop file changed (now %.12s); `hook-loop reload --session %s` applies it", r.LoopFile, r.Session)
}

func outcomeText(r sessionStatus) string {
	switch r.Outcome {
	case "":
		if r.Terminal {
			// A simulation, or a session whose agent has not tried to stop since.
			return "reached " + r.State + "; no stop decided yet"
		}
		return "none yet"
	case "completed":
		return "completed — the loop reached " + r.State + " and allowed the stop"
	case "stopped":
		return "stopped — the loop reached its stop state"
	case "capped":
		return "capped — hook-loop let the agent stop after max_stop_blocks refusals; the loop did not finish"
	case "cancelled":
		return "cancelled by the person — the loop no longer gates this session"
	case "forced":
		return "forced by the harness — it ended the session while hook-loop was refusing the stop"
	}
	return r.Outcome
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// projectFiles are the project root around cwd and the event log and loop file
// the commands that read a project use: the flags' when given, else the
// project's defaults.
func projectFiles(cwd, logFlag, configFlag string, getenv func(string) string) (root, logPath, configPath string) {
	root = project.Root(cwd)
	logPath, configPath = logFlag, configFlag
	if logPath == "" {
		logPath = project.FindLog(root, getenv)
	}
	if configPath == "" {
		configPath = project.ConfigPath(root)
	}
	return root, logPath, configPath
}
