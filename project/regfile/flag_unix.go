//go:build unix

package regfile

import "syscall"

const (
	noWait       = syscall.O_NONBLOCK
	noFollowFlag = syscall.O_NOFOLLOW
	// kernelNoFollow: the open itself refuses a link, so nothing can swap
	// one in between a check and the open.
	kernelNoFollow = true
)
