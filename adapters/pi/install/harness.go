// Package install installs hook-loop into the pi coding agent (the extension
// that runs pi-hook) and checks the installation; the adapter the hooks run is
// the parent package's, which the lean hook binary links without this.
package install

import (
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is the pi coding agent for the registry.
var Harness setup.Harness = piHarness{pi.Hooks}

type piHarness struct{ harness.Hooks }

func (piHarness) NewCmd(f *cmdutil.Factory) *cli.Command      { return NewCmd(f) }
func (piHarness) Doctor(env *setup.DoctorEnv) []setup.Finding { return checkInstall(env) }
