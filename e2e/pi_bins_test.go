package e2e

import (
	"testing"

	"github.com/hook-loop/hook-loop/testkit/need"
)

// piHookLoopBin is the hook-loop built by TestMain (its directory has a space:
// the extension must call it by an absolute path that works unquoted).
func piHookLoopBin(t *testing.T) string { return hookLoopBinary(t) }

// piHarnessBin finds the real pi, and node to run it, or skips (fails under
// CI).
func piHarnessBin(t *testing.T) string {
	t.Helper()
	p := harnessBin(t, "pi")
	need.Node(t)
	return p
}
