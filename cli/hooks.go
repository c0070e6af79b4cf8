package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/sdk/hooks"
	"github.com/urfave/cli/v2"
)

// HooksOptions are the flags of hooks, hooks points and hooks test.
type HooksOptions struct {
	IO          *IOStreams
	WorkDir     string
	hooksConfig string
	json        bool
	point       string
	getenv      func(string) string
	name        string // hooks test's NAME
}

// NewCmdHooks builds `hooks` with points and test; runF replaces the run
// functions in tests.
func NewCmdHooks(f *Factory, runF func(*HooksOptions) error) *cli.Command {
	o := &HooksOptions{}
	bind := func() { o.IO, o.WorkDir, o.getenv = f.IOStreams, f.Cwd(), f.Getenv }
	// A flag value is one object per command: urfave/cli keeps parse state in it.
	configFlag := func() cli.Flag {
		return &cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration `FILE` (default: $HOOK_LOOP_CONFIG, else $XDG_CONFIG_HOME/hook-loop/config.yaml or config.json)", Destination: &o.hooksConfig}
	}
	return &cli.Command{
		Name:      "hooks",
		Usage:     "print the lifecycle hooks declaration, without running or contacting any of it",
		UsageText: "hook-loop hooks [--hooks-config FILE]\nhook-loop hooks points [--json]\nhook-loop hooks test NAME --point POINT [--hooks-config FILE]",
		Flags:     []cli.Flag{configFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: unknown hooks subcommand %q (expected points or test)", c.Args().First())
			}
			bind()
			return run(runF, runHooksList, o)
		},
		Subcommands: []*cli.Command{
			{
				Name:      "points",
				Usage:     "print the lifecycle points with their facts and decisions",
				ArgsUsage: " ",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON", Destination: &o.json}},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return exitf(2, "usage: hooks points takes no arguments (got %q)", c.Args().First())
					}
					bind()
					return run(runF, runHooksPoints, o)
				},
			},
			{
				Name:      "test",
				Usage:     "send a sample context to one hook and print its answer and what it would change",
				ArgsUsage: "NAME",
				UsageText: "hook-loop hooks test NAME --point POINT [--hooks-config FILE]",
				Description: "--point POINT        the lifecycle point to send (one of " + strings.Join(hooks.PointNames(), ", ") + ")\n" +
					"--hooks-config FILE  the declaration (default: $HOOK_LOOP_CONFIG, else $XDG_CONFIG_HOME/hook-loop/config.yaml or config.json)",
				// urfave/cli reorders arguments around flags in ways that lose
				// --point's value; this command's three arguments are parsed here.
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					args := c.Args().Slice()
					if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
						return cli.ShowSubcommandHelp(c)
					}
					name, err := o.testArgs(args)
					if err != nil {
						return err
					}
					bind()
					o.name = name
					return run(runF, func(o *HooksOptions) error { return runHooksTest(c.Context, o) }, o)
				},
			},
		},
	}
}

func runHooksList(o *HooksOptions) error {
	path, explicit, err := lifecycle.FindConfig(o.hooksConfig, o.getenv)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if _, err := os.Stat(path); err != nil && !explicit && os.IsNotExist(err) {
		fmt.Fprintf(o.IO.Out, "no lifecycle hooks declared (no file at %s)\n", path)
		return nil
	}
	entries, err := lifecycle.ParseFile(path)
	if err != nil {
		return exitf(1, "%v", err)
	}
	if len(entries) == 0 {
		fmt.Fprintf(o.IO.Out, "no lifecycle hooks declared in %s\n", path)
		return nil
	}
	return lifecycle.Describe(o.IO.Out, path, entries)
}

func runHooksPoints(o *HooksOptions) error { return lifecycle.WritePoints(o.IO.Out, o.json) }

// testArgs takes NAME, --point and --hooks-config, in any order.
func (o *HooksOptions) testArgs(args []string) (string, error) {
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		key, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (key != "point" && key != "hooks-config") {
			if strings.HasPrefix(a, "-") {
				return "", exitf(2, "usage: hooks test: unknown flag %s", a)
			}
			names = append(names, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return "", exitf(2, "usage: hooks test: flag %s needs a value", a)
			}
			i++
			val = args[i]
		}
		if key == "point" {
			o.point = val
		} else {
			o.hooksConfig = val
		}
	}
	if len(names) != 1 || o.point == "" {
		return "", exitf(2, "usage: hooks test NAME --point POINT [--hooks-config FILE]")
	}
	return names[0], nil
}

func runHooksTest(ctx context.Context, o *HooksOptions) error {
	name := o.name
	canonical, _ := hooks.Canonical(o.point)
	p, ok := hooks.Lookup(canonical)
	if !ok {
		return exitf(2, "usage: --point %q: expected one of %s", o.point, strings.Join(hooks.PointNames(), ", "))
	}
	path, _, err := lifecycle.FindConfig(o.hooksConfig, o.getenv)
	if err != nil {
		return exitf(1, "%v", err)
	}
	r, err := lifecycle.Load(path)
	if err != nil {
		return exitf(1, "%v", err)
	}
	var entry *lifecycle.Entry
	for _, e := range r.Entries() {
		if e.Name == name {
			entry = &e
			break
		}
	}
	if entry == nil {
		return exitf(1, "%s: no hook named %q", path, name)
	}
	if !strings.Contains(","+strings.Join(entry.Points(), ",")+",", ","+p.Name+",") {
		fmt.Fprintf(o.IO.Out, "note: %s does not run at %s (on: %s); sending anyway\n", name, p.Name, strings.Join(entry.Points(), ","))
	}
	if entry.Disabled {
		fmt.Fprintf(o.IO.Out, "note: %s is disabled; sending anyway\n", name)
	}
	c := lifecycle.SampleContext(p, o.WorkDir)
	res, err := r.Call(ctx, name, p.Name, c)
	if err != nil {
		return exitf(1, "%v", err)
	}
	fmt.Fprintf(o.IO.Out, "request: %s\n", res.Request)
	if len(res.Answer) > 0 {
		fmt.Fprintf(o.IO.Out, "answer:  %s\n", strings.TrimSpace(string(res.Answer)))
	}
	if res.Err != nil {
		fmt.Fprintf(o.IO.Out, "failed:  %v\n", res.Err)
		if entry.Required && p.HasDecision("proceed") {
			fmt.Fprintf(o.IO.Out, "it is required: at %s this failure refuses (proceed false)\n", p.Name)
		}
		return exitf(1, "hook %s failed at %s", name, p.Name)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.IO.Out, "warning: %s\n", w)
	}
	if len(res.Changed) == 0 {
		fmt.Fprintln(o.IO.Out, "would change: nothing (passes through)")
		return nil
	}
	fmt.Fprintln(o.IO.Out, "would change:")
	for _, f := range p.Decisions() {
		if v, ok := res.Changed[f.Name]; ok {
			b, _ := json.Marshal(v)
			fmt.Fprintf(o.IO.Out, "  %s: %s\n", f.Name, b)
		}
	}
	return nil
}
