//go:build unix

package lifecycle

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel starts the command in its own process group and kills the
// group, not just the leader, when its context ends.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
