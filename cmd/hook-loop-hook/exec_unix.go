//go:build unix

package main

import "syscall"

// execFull replaces this process with hook-loop: the harness's hook process
// then is hook-loop, with its stdin unread.
func execFull(path string, argv, envv []string) error { return syscall.Exec(path, argv, envv) }
