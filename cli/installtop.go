package cli

import (
	"fmt"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/diag/suggest"
	"github.com/urfave/cli/v2"
)

// NewCmdHarnessVerb builds the top-level `install HARNESS` or `uninstall
// HARNESS`: it runs `hook-loop HARNESS install|uninstall` with the remaining
// arguments, so every harness in hs (the registry, with harnesses added
// later) is reachable both ways and the flags stay the harness's own.
func NewCmdHarnessVerb(f *Factory, hs []setup.Harness, verb string) *cli.Command {
	var names []string
	for _, h := range hs {
		names = append(names, h.Name())
	}
	list := strings.Join(names, "|")
	usage := map[string]string{
		"install":   "install hook-loop into a harness's hooks (" + list + "); the same as hook-loop HARNESS install",
		"uninstall": "remove hook-loop from a harness's hooks (" + list + "); the same as hook-loop HARNESS uninstall",
	}[verb]
	return &cli.Command{
		Name:            verb,
		Usage:           usage,
		UsageText:       fmt.Sprintf("hook-loop %s %s [flags] (see 'hook-loop %s HARNESS --help')", verb, list, verb),
		SkipFlagParsing: true,
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
				if len(args) == 0 {
					return exitf(2, "usage: name the harness: hook-loop %s %s", verb, list)
				}
				return cli.ShowSubcommandHelp(c)
			}
			name := args[0]
			if strings.HasPrefix(name, "-") {
				return exitf(2, "usage: name the harness before the flags: hook-loop %s %s %s", verb, list, strings.Join(args, " "))
			}
			for _, h := range hs {
				if h.Name() == name {
					code := Run(f, hs, append([]string{"hook-loop", name, verb}, args[1:]...))
					if code != 0 {
						return &ExitError{Code: code}
					}
					return nil
				}
			}
			return exitf(2, "usage: %s: unknown harness %q%s; expected one of %s", verb, name, suggest.Hint(name, names), strings.Join(names, ", "))
		},
	}
}
