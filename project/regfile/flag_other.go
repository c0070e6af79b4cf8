//go:build !unix

package regfile

import "syscall"

const (
	noWait       = syscall.O_NONBLOCK
	noFollowFlag = 0
	// kernelNoFollow: without O_NOFOLLOW a link is looked for before the
	// open.
	kernelNoFollow = false
)
