package cmd

import (
	"context"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/internal/hookrun"
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
	out := hookrun.Run(ctx, hookrun.Options{
		Adapter:     claude.New(),
		Event:       o.Event,
		ConfigPath:  o.ConfigPath,
		LogPath:     o.LogPath,
		HooksConfig: o.HooksConfig,
		Record:      o.Record,
		Stdin:       s.In,
		Cwd:         cwd,
	})
	s.Out.Write(out.Stdout)
	s.ErrOut.Write(out.Stderr)
	if out.Exit != 0 {
		return &ExitError{Code: out.Exit}
	}
	return nil
}
