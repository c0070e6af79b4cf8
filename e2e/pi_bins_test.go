package e2e

import (
	"os/exec"
	"testing"
)

// piHookLoopBin is the hook-loop built by TestMain (its directory has a space:
// the extension must call it by an absolute path that works unquoted).
func piHookLoopBin(t *testing.T) string { return hookLoopBinary(t) }

// piHarnessBin finds the real pi, and node to run it, or skips.
func piHarnessBin(t *testing.T) string {
	t.Helper()
	p := harnessBin(t, "pi")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found: pi needs it; install node, then run scripts/install-harnesses.sh pi")
	}
	return p
}
