package cmdutil

import (
	"context"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// Install holds the flags the four harnesses' install and uninstall commands
// share; each harness's options embed it through Common.
type Install struct {
	DSL         string
	Profile     string
	Destination string
	HooksConfig string // lifecycle hooks declaration the hooks pass on ("" = the user's)
	Record      bool
	Store       string // --store: a postgres:// URL for the loop's log
	Mode        string
	Purge       bool   // uninstall: also remove hook-loop.json and .hook-loop/
	Binary      string // the hook-loop executable the hooks run ("" = the running one)
	Scope       string // --scope of the harnesses whose files live per project or per user
	Home        string // the user's home for --scope user ("" = os.UserHomeDir)
}

// Options is what a harness's install options are: they embed Common.
type Options[O any] interface {
	*O
	common() *Common
}

func (c *Common) common() *Common { return c }

// InstallCmd is what differs between one harness's install (or uninstall)
// and another's; NewInstallCmd adds the flags they share.
type InstallCmd[P any] struct {
	Name      string // "install" or "uninstall"
	Usage     string
	UsageText string
	// Where are the flags that say which file the command writes (--scope,
	// --target, --codex-home, ...); they come first.
	Where func(P) []cli.Flag
	// ScopeUsage, when set, adds --scope (default project) with this help.
	ScopeUsage string
	// DSLUsage is --dsl's help: installs read the flag differently (in place
	// or copied). "" = an uninstall: no loop flags.
	DSLUsage string
	// HooksConfig adds --hooks-config (a plugin or extension passes it on);
	// Binary adds the hidden --binary; Purge adds uninstall's --purge.
	HooksConfig, Binary, Purge bool
	// Flags are the command's own, after the shared ones.
	Flags func(P) []cli.Flag
	Run   func(context.Context, P) error
}

// NewInstallCmd builds a harness's install or uninstall in cli/cli's shape;
// runF replaces spec.Run in tests.
func NewInstallCmd[O any, P Options[O]](f *Factory, runF func(P) error, spec InstallCmd[P]) *cli.Command {
	o := P(new(O))
	c := o.common()
	var flags []cli.Flag
	if spec.ScopeUsage != "" {
		flags = append(flags, &cli.StringFlag{Name: "scope", Value: "project", Usage: spec.ScopeUsage, Destination: &c.Scope})
	}
	if spec.Where != nil {
		flags = append(flags, spec.Where(o)...)
	}
	flags = append(flags, &cli.StringFlag{Name: "destination", Usage: "project directory (default: the project the current directory is in: the nearest directory up holding hook-loop.json, .hook-loop or .git)", Destination: &c.Destination})
	if spec.Binary {
		flags = append(flags, &cli.StringFlag{Name: "binary", Hidden: true, Destination: &c.Binary})
	}
	flags = append(flags, StateFlag(&c.State))
	flags = append(flags, DryRunWriteFlags(&c.DryRun, &c.Write)...)
	if spec.DSLUsage != "" {
		flags = append(flags,
			&cli.StringFlag{Name: "dsl", Usage: spec.DSLUsage, Destination: &c.DSL},
			&cli.StringFlag{Name: "profile", Usage: "gallery loop written as hook-loop.json (" + scaffold.ProfileNames() + "; default " + gallery.Default + ")", Destination: &c.Profile})
	}
	if spec.HooksConfig {
		flags = append(flags, &cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration the hooks pass to hook-loop (default: the user's config.yaml or config.json)", Destination: &c.HooksConfig})
	}
	if spec.DSLUsage != "" {
		flags = append(flags, RecordFlag(&c.Record), StoreFlag(&c.Store), ModeFlag(&c.Mode))
	}
	if spec.Purge {
		flags = append(flags, &cli.BoolFlag{Name: "purge", Usage: "also remove hook-loop.json and .hook-loop/", Destination: &c.Purge})
	}
	if spec.Flags != nil {
		flags = append(flags, spec.Flags(o)...)
	}
	return &cli.Command{
		Name:      spec.Name,
		Usage:     spec.Usage,
		UsageText: spec.UsageText,
		Flags:     flags,
		Action:    Action(f, c, o, runF, spec.Run),
	}
}

// CopiedDSLUsage is --dsl's help where install copies the file to the
// project's hook-loop.json (the prototype's reading).
const CopiedDSLUsage = "copy this loop file instead of the profile (it wins over --profile)"

// ProjectDest is --destination resolved against the working directory; when
// not given, the project root the working directory belongs to (ProjectDir).
func (c *Common) ProjectDest() string {
	d, err := ProjectDir(c.WorkDir, c.Destination)
	if err != nil {
		return Resolve(c.WorkDir, ".")
	}
	return d
}

// NewHarnessCmd builds a harness's command: `<name> install` and
// `<name> uninstall`.
func NewHarnessCmd[O any, P Options[O]](f *Factory, name, usage string, install, uninstall InstallCmd[P]) *cli.Command {
	return &cli.Command{
		Name:        name,
		Usage:       usage,
		Subcommands: []*cli.Command{NewInstallCmd[O](f, nil, install), NewInstallCmd[O](f, nil, uninstall)},
	}
}
