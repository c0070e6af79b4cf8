package cmd

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/lifecycle"
)

func init() { register(newClaudeHookCommand) }

// claudeHookOptions are the flags of claude-hook; they match codex-hook's so one
// loop file and one log serve both harnesses.
type claudeHookOptions struct {
	Event       string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Record      bool
}

func newClaudeHookCommand(s *IOStreams) *cli.Command {
	var o claudeHookOptions
	return &cli.Command{
		Name:      "claude-hook",
		Usage:     "the command Claude Code runs for a hook event (reads the event JSON on stdin)",
		UsageText: "hook-loop claude-hook [--event EVENT] [--config FILE] [--event-log FILE]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event", Usage: "Claude Code hook event name (default: the payload's hook_event_name)", Destination: &o.Event},
			&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root)", Destination: &o.ConfigPath},
			&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.json)", Destination: &o.HooksConfig},
			&cli.BoolFlag{Name: "record", Usage: "also keep the raw hook input in .hook-loop/trace.jsonl", Destination: &o.Record},
		},
		Action: func(c *cli.Context) error { return runClaudeHook(c.Context, s, o) },
	}
}

func runClaudeHook(ctx context.Context, s *IOStreams, o claudeHookOptions) error {
	// Claude Code starts hooks in the project directory and also exports it;
	// prefer the export so a hook started elsewhere still finds the project.
	cwd, _ := os.Getwd()
	if d := os.Getenv("CLAUDE_PROJECT_DIR"); d != "" && o.ConfigPath == "" {
		cwd = d
	}
	if o.ConfigPath == "" {
		// Without --config (a user-scope install serves every project), a
		// project with no loop file is not gated: Claude Code proceeds and the
		// person is not told on every event that a loop is missing.
		if _, err := os.Stat(project.ConfigPath(project.Root(cwd))); errors.Is(err, fs.ErrNotExist) {
			io.Copy(io.Discard, s.In) //nolint:errcheck // drain stdin so Claude never sees a broken pipe
			return nil
		}
	}
	out := hookrun.Run(ctx, hookrun.Options{
		Adapter:     claude.New(),
		Event:       o.Event,
		ConfigPath:  o.ConfigPath,
		LogPath:     o.LogPath,
		HooksConfig: o.HooksConfig,
		Record:      o.Record,
		Stdin:       s.In,
		Cwd:         cwd,
		// The person's lifecycle hooks (their config, never the checkout's).
		LoadLifecycle: lifecycle.ForHook,
	})
	s.Out.Write(out.Stdout)
	s.ErrOut.Write(out.Stderr)
	if out.Exit != 0 {
		return &ExitError{Code: out.Exit}
	}
	return nil
}
