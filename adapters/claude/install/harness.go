// Package install installs hook-loop into Claude Code (its settings files)
// and checks the installation; the adapter the hooks run is the parent
// package's, which the lean hook binary links without this.
package install

import (
	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is Claude Code for the registry.
var Harness setup.Harness = claudeHarness{claude.Hooks}

type claudeHarness struct{ harness.Hooks }

func (claudeHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return Claude.NewCmd(f) }
func (claudeHarness) Doctor(env *setup.DoctorEnv) []setup.Finding {
	return Claude.CheckInstall(env)
}
