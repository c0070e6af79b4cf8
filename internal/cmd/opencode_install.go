package cmd

import (
	"fmt"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

func init() { register(newOpencodeCommand) }

// opencodeInstallOptions are the flags of `opencode install` / `opencode
// uninstall` (the prototype's, plus --hooks-config and uninstall's --purge).
type opencodeInstallOptions struct {
	Profile     string
	DSL         string
	Destination string
	DryRun      bool
	Write       bool
	HooksConfig string
	Record      bool
	Purge       bool
	Binary      string // hidden: the binary the plugin runs ("" = this one)
}

func newOpencodeCommand(s *IOStreams) *cli.Command {
	var o opencodeInstallOptions
	common := func() []cli.Flag {
		return append([]cli.Flag{
			&cli.StringFlag{Name: "destination", Value: ".", Usage: "project directory", Destination: &o.Destination},
			&cli.StringFlag{Name: "binary", Hidden: true, Destination: &o.Binary},
		}, dryRunWriteFlags(&o.DryRun, &o.Write)...)
	}
	return &cli.Command{
		Name:  "opencode",
		Usage: "install hook-loop's plugin into an opencode project, or remove it",
		Subcommands: []*cli.Command{
			{
				Name:      "install",
				Usage:     "write .opencode/plugins/hook_loop.js and the loop file (kept when present)",
				UsageText: "hook-loop opencode install [--profile NAME | --dsl FILE] [--destination DIR] [--hooks-config FILE] [--record] [--write]",
				Flags: append(common(),
					&cli.StringFlag{Name: "profile", Value: gallery.Default, Usage: "gallery loop written as hook-loop.json (" + joinNames() + ")", Destination: &o.Profile},
					&cli.StringFlag{Name: "dsl", Usage: "copy this loop file instead of the profile", Destination: &o.DSL},
					&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration the plugin passes to hook-loop (default: the user's)", Destination: &o.HooksConfig},
					recordFlag(&o.Record),
				),
				Action: func(c *cli.Context) error { return runOpencodeInstall(s, o) },
			},
			{
				Name:      "uninstall",
				Usage:     "remove hook-loop's opencode plugin (never another file)",
				UsageText: "hook-loop opencode uninstall [--destination DIR] [--write] [--purge]",
				Flags: append(common(),
					&cli.BoolFlag{Name: "purge", Usage: "also remove hook-loop.json and .hook-loop/", Destination: &o.Purge},
				),
				Action: func(c *cli.Context) error { return runOpencodeUninstall(s, o) },
			},
		},
	}
}

func (o opencodeInstallOptions) scaffold() scaffold.OpencodeOptions {
	return scaffold.OpencodeOptions{Profile: o.Profile, DSLPath: o.DSL, Destination: o.Destination, Binary: o.Binary,
		HooksConfig: o.HooksConfig, Record: o.Record, Version: Version, Purge: o.Purge}
}

func runOpencodeInstall(s *IOStreams, o opencodeInstallOptions) error {
	if o.DSL != "" && o.Profile != gallery.Default && o.Profile != "" {
		return exitf(2, "usage: give --dsl or --profile, not both")
	}
	plan, err := scaffold.PlanOpencodeInstall(o.scaffold())
	if err != nil {
		return err
	}
	if !o.Write {
		fmt.Fprintln(s.Out, "hook-loop opencode install: dry run, nothing is written (add --write to apply)")
	}
	fmt.Fprintf(s.Out, "hook binary: %s\n", plan.Binary)
	plan.Render(s.Out)
	if !o.Write {
		return nil
	}
	if err := plan.Apply(); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "wrote %d file(s); opencode loads the plugin when it next starts in %s\n", len(plan.Changes), plan.Dest)
	return nil
}

func runOpencodeUninstall(s *IOStreams, o opencodeInstallOptions) error {
	plan, err := scaffold.PlanOpencodeUninstall(o.scaffold())
	if err != nil {
		return err
	}
	if !o.Write {
		fmt.Fprintln(s.Out, "hook-loop opencode uninstall: dry run, nothing is changed (add --write to apply)")
	}
	plan.Render(s.Out)
	if !o.Write {
		return nil
	}
	if err := plan.Apply(); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "changed %d file(s)\n", len(plan.Changes))
	return nil
}
