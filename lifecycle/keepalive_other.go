//go:build !unix

package lifecycle

import (
	"context"
	"errors"
)

// Without unix sockets and flock a keepAlive entry runs afresh per call.
const keepAliveSupported = false

func (r *Runner) callKept(ctx context.Context, e Entry, env []string, req []byte) ([]byte, error) {
	return runCommand(ctx, e, env, req)
}

// ServeKeepAlive is unix-only.
func ServeKeepAlive(context.Context, string) error {
	return errors.New("kept-alive executors need a unix system")
}
