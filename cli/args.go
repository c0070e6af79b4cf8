package cli

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves flags that follow positional arguments in front of them.
// urfave/cli v2 stops reading flags at the first positional argument, but the
// CLI of the Python prototype (argparse; see docs/dsl-origin.md) accepted
// `simulate FILE --event-log F`, and existing scripts and hooks.json files call
// hook-loop that way.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	i := 1
	var cmd *cli.Command
	// Walk the command path (global flags never take values here).
	for i < len(args) {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if cmd != nil {
				break // the command's own flags: they may take values
			}
			out = append(out, a)
			i++
			continue
		}
		next := findCommand(cmds, a)
		if next == nil {
			break
		}
		cmd = next
		cmds = next.Subcommands
		out = append(out, a)
		i++
	}
	// A command with subcommands stopped at a word that names none of them:
	// left in place, urfave/cli reports that word as the unknown command
	// (`claude instal --write`) instead of the parent refusing the flag.
	if cmd == nil || cmd.SkipFlagParsing || len(cmd.Subcommands) > 0 {
		return append(out, args[i:]...)
	}
	var flags, positional []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && takesValue(cmd, strings.TrimLeft(a, "-")) && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		positional = append(positional, a)
	}
	out = append(out, flags...)
	return append(out, positional...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if _, isBool := f.(*cli.BoolFlag); isBool {
				return false
			}
			return true
		}
	}
	return false
}
