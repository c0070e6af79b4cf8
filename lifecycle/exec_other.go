//go:build !unix

package lifecycle

import "os/exec"

// killGroupOnCancel: without process groups, the default (kill the process)
// applies and WaitDelay bounds the wait on its pipes.
func killGroupOnCancel(*exec.Cmd) {}
