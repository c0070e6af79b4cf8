//go:build !unix

package cli

import "errors"

// The hook servers of earlier versions ran only on Linux.
func leftoverServers() []leftoverServer { return nil }

func stopProcess(int) error { return errors.ErrUnsupported }
