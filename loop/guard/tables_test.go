package guard

import (
	"reflect"
	"testing"
)

// riskyProgram and gitSubRisk were maps; these are their entries, so that the
// switches that replaced them drop none and route each to the same checker.
func TestRiskSwitchesKeepEveryEntry(t *testing.T) {
	same := func(a, b checker) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	for name, want := range map[string]checker{
		"rm": rmRisk, "git": gitRisk, "find": findRisk, "dd": ddRisk,
		"chmod": recursiveOnHomeRisk, "chown": recursiveOnHomeRisk,
		"mkfs": machineRisk, "mkfs.ext4": machineRisk, "mkfs.xfs": machineRisk, "fdisk": machineRisk,
		"parted": machineRisk, "shutdown": machineRisk, "reboot": machineRisk, "halt": machineRisk,
		"poweroff": machineRisk, "kill": killRisk, "pkill": killRisk, "killall": killRisk,
	} {
		if got := riskyProgram(name); got == nil || !same(got, want) {
			t.Errorf("riskyProgram(%q) is not its old checker", name)
		}
	}
	for sub, want := range map[string]checker{
		"push": gitPushRisk, "reset": gitResetRisk, "clean": gitCleanRisk, "checkout": gitCheckoutRisk,
		"restore": gitCheckoutRisk, "branch": gitBranchRisk, "stash": gitStashRisk,
	} {
		if got := gitSubRisk(sub); got == nil || !same(got, want) {
			t.Errorf("gitSubRisk(%q) is not its old checker", sub)
		}
	}
	for _, n := range []string{"", "ls", "sudo", "status"} {
		if riskyProgram(n) != nil || gitSubRisk(n) != nil {
			t.Errorf("%q has a checker it never had", n)
		}
	}
}
