package lifecycle

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// Describe writes the declaration read from path, as `hook-loop hooks` shows
// it: a table, then per entry what it runs, whether that file exists, its
// timeout, keep-alive and `with`. Nothing is run or contacted; a token's
// variable is named, its value never read.
func Describe(w io.Writer, path string, entries []Entry) error {
	fmt.Fprintf(w, "hooks config: %s\n", path)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tTARGET\tPOINTS\tREQUIRED\tENABLED")
	for _, e := range entries {
		target := e.Target()
		if e.TokenEnv != "" {
			target += " (bearer from $" + e.TokenEnv + ")"
		}
		points := "all"
		if len(e.On) > 0 {
			points = strings.Join(e.On, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Kind(), target, points, yesNo(e.Required), yesNo(!e.Disabled))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range entries {
		fmt.Fprintf(w, "\n%s:\n", e.Name)
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
		switch e.Kind() {
		case "url":
			fmt.Fprintf(tw, "  calls\t%s\n", e.URL)
		default:
			fmt.Fprintf(tw, "  runs\t%s (in %s)\n", strings.Join(e.Argv(), " "), e.Dir)
			fmt.Fprintf(tw, "  file\t%s\n", fileState(e))
			if e.KeepAlive || e.Idle > 0 {
				fmt.Fprintf(tw, "  keepAlive\tignored: every call starts the executor, and nothing stays running after the hook\n")
			}
		}
		for _, design := range sortedKeys(e.Aliases) {
			fmt.Fprintf(tw, "  on\t%s is the lifecycle design's name of %s: loaded as %s (docs/lifecycle.md)\n", design, e.Aliases[design], e.Aliases[design])
		}
		timeout := e.timeout().String()
		if e.Timeout <= 0 {
			timeout += " (default)"
		}
		fmt.Fprintf(tw, "  timeout\t%s\n", timeout)
		if e.With != nil {
			b, _ := json.Marshal(e.With)
			fmt.Fprintf(tw, "  with\t%s\n", b)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// fileState says where an executor's code is and whether it is there, so a
// missing file is found before a hook fires.
func fileState(e Entry) string {
	f := e.File()
	switch {
	case f == "" && e.Kind() == "module":
		return fmt.Sprintf("not found beside the declaration (%s); an installed module is looked up on PYTHONPATH when the hook runs", e.Dir)
	case f == "":
		return fmt.Sprintf("MISSING: %s is not found (on PATH or at that path)", e.Argv()[0])
	}
	if _, err := os.Stat(f); err != nil {
		return f + " (MISSING)"
	}
	return f + " (exists)"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// harnessNotes says, per point with a refusal, what each harness does with it
// and what a hook cannot do there. The Claude Code lines follow the captured
// records in the harness payload experiments.
var harnessNotes = map[string][]string{
	hooks.PointLoopStart: {
		"every harness: proceed false holds the session (never disarms it): its tool calls and stops are refused with reason until the person runs `hook-loop reload --session ID`; recorded as hooks.refused and lifecycle_held",
		"a required hook that fails holds the session the same way",
	},
	hooks.PointSessionStart: {
		"claude: proceed false ends the session: continue false with stopReason at SessionStart, and, since Claude Code 2.1.328 still submits the first prompt, again at that prompt (\"Operation stopped by hook: reason\", no model call); context is added as additionalContext",
		"codex: proceed false ends the session (continue false, stopReason); Codex runs no turn",
		"opencode: the plugin cannot end a session from session.created; the refusal is logged (hooks.refused) and every later prompt and tool call of the session is refused",
		"pi: the extension cannot end a session from session_start; the refusal is logged (hooks.refused) and every later prompt and tool call of the session is refused",
		"every harness: the session's stops are let through, and a hook cannot change what the session starts with beyond context",
	},
	hooks.PointSessionSpawned: {
		"every harness: announce is given to the agent with hook-loop's answer to the session's first event (claude, codex: additionalContext; opencode, pi: beside the prompt or tool output); a first event that takes no text for the model (a stop) shows it to the person",
	},
	hooks.PointInputReceived: {
		"every harness: proceed false refuses the prompt (claude, codex: decision block; opencode: chat.message throws; pi: the input is handled, not sent)",
		"no harness lets a hook rewrite the prompt: prompt is a fact; context adds text beside it",
		"a person's control (approve, reject, advance, reset, pause, resume, cancel; from the CLI or the board): proceed false refuses it — the command exits 1, the board shows the reason — and nothing of it is applied",
	},
	hooks.PointPhaseChanged: {
		"every harness: the transition is applied whatever the hook says; notify false drops hook-loop's message for it, message replaces it",
		"a required hook that fails holds the session: its tool calls and stops are refused until `hook-loop reload --session ID`",
	},
	hooks.PointWaitingForInput: {
		"every harness: the state is entered whatever the hook says; question and summary replace the text shown and logged (waiting_for_input)",
		"a required hook that fails holds the session, as at phase_changed",
	},
	hooks.PointLoopComplete: {
		"every harness: the loop ends whatever the hook says; announce false drops hook-loop's completion message",
		"a required hook that fails holds the session, as at phase_changed",
	},
	hooks.PointToolRequested: {
		"every harness: proceed false refuses the call and the model reads reason (claude: permissionDecision deny; codex: decision block; opencode: tool.execute.before throws; pi: the tool call is blocked)",
		"the tool's arguments cannot be rewritten",
	},
}

// WritePoints writes the points, their facts and decisions (from
// sdk/hooks), and what a refusal does on each harness.
func WritePoints(w io.Writer, asJSON bool) error {
	if asJSON {
		type pointJSON struct {
			Name        string        `json:"name"`
			Description string        `json:"description"`
			Facts       []hooks.Field `json:"facts"`
			Decisions   []hooks.Field `json:"decisions"`
			Harnesses   []string      `json:"harnesses,omitempty"`
		}
		var out []pointJSON
		for _, p := range hooks.Points {
			out = append(out, pointJSON{p.Name, p.Description, p.Facts(), p.Decisions(), harnessNotes[p.Name]})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i, p := range hooks.Points {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %s\n", p.Name, p.Description)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  facts:")
		for _, f := range p.Facts() {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.Name, f.Type, f.Doc)
		}
		fmt.Fprintln(tw, "  decisions:")
		for _, f := range p.Decisions() {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.Name, f.Type, f.Doc)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if notes := harnessNotes[p.Name]; len(notes) > 0 {
			fmt.Fprintln(w, "  per harness:")
			for _, n := range notes {
				fmt.Fprintf(w, "    %s\n", n)
			}
		}
	}
	return nil
}

// SampleContext fills a point's context with facts like those the engine
// sends, for `hook-loop hooks test`.
func SampleContext(p hooks.Point, cwd string) any {
	f := hooks.Facts{LoopID: "plan-execute", SessionID: "019a-sample-session", Harness: "codex", Cwd: cwd, State: "planning", Actor: "agent"}
	switch p.Name {
	case hooks.PointLoopStart:
		c := hooks.NewLoopStart(f)
		c.Command = "SessionStart"
		return c
	case hooks.PointSessionStart:
		c := hooks.NewSessionStart(f, "startup", "hook-loop: loop plan-execute, state planning. Write PLAN.md, then implement it.")
		c.Model = "gpt-5-codex"
		return c
	case hooks.PointSessionSpawned:
		return hooks.NewSessionSpawned(f, "SessionStart", "startup", "gpt-5-codex")
	case hooks.PointInputReceived:
		return hooks.NewInputReceived(f, "add a --verbose flag to the CLI")
	case hooks.PointToolRequested:
		return hooks.NewToolRequested(f, "Bash", json.RawMessage(`{"command":"go test ./..."}`), "go test ./...", nil)
	case hooks.PointPhaseChanged:
		f.State = "executing"
		return hooks.NewPhaseChanged(f, "planning", "executing", "plan_ready", false)
	case hooks.PointWaitingForInput:
		f.State = "review"
		return hooks.NewWaitingForInput(f, "hook-loop: the plan is ready for review; approve it to continue.", "waiting for review in state review")
	case hooks.PointLoopComplete:
		f.State = "done"
		return hooks.NewLoopComplete(f, "done", "completed")
	}
	return p.New()
}
