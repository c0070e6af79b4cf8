package cli

import (
	"github.com/hook-loop/hook-loop/hook"
	"github.com/urfave/cli/v2"
)

// hookFlags are hook.Flags as urfave/cli flags, but --event, which each
// *-hook command describes itself and serve reads per request.
func hookFlags(o *hook.Flags) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root)", Destination: &o.ConfigPath},
		&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
		&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.yaml or config.json)", Destination: &o.HooksConfig},
		&cli.StringFlag{Name: "store", Usage: "keep the loop's log in PostgreSQL: a postgres:// `URL`, without the password (PGPASSWORD or ~/.pgpass); default $HOOK_LOOP_STORE, else \"store\" in the user config, else the JSONL file", Destination: &o.Store},
		&cli.StringFlag{Name: "mode", Usage: "enforce, warn or audit: overrides the loop's loop.mode (HOOK_LOOP_MODE overrides both)", Destination: &o.Mode},
		&cli.BoolFlag{Name: "record", Usage: "also keep the raw hook input in trace.jsonl beside the event log, for hook-loop replay", Destination: &o.Record},
		&cli.StringFlag{Name: "state", Usage: "where the event log lives when --event-log does not say: user (the user's state directory) or project (<project>/.hook-loop, the default)", Destination: &o.State},
	}
}
