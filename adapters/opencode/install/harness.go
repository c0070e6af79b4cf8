// Package install installs hook-loop into opencode (the plugin that runs
// opencode-hook) and checks the installation; the adapter the hooks run is the
// parent package's, which the lean hook binary links without this.
package install

import (
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is opencode for the registry.
var Harness setup.Harness = opencodeHarness{opencode.Hooks}

type opencodeHarness struct{ harness.Hooks }

func (opencodeHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return NewCmd(f) }
func (opencodeHarness) Doctor(env *setup.DoctorEnv) []setup.Finding {
	return checkInstall(env)
}
