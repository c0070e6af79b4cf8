//go:build !linux

package pgkeeper

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
)

// The keeper needs SOCK_SEQPACKET and SO_PEERCRED, which are Linux's: elsewhere
// every hook connects by itself.

var errUnsupported = errors.New("pgkeeper: not supported on this system")

// Borrow always fails here: the store connects by itself.
func (c *Client) Borrow(context.Context, string) (*postgres.Loan, error) {
	return nil, errUnsupported
}

// Give closes the connection.
func (c *Client) Give(_ string, l *postgres.Loan) { _ = l.Conn.Close() }

// Main refuses to run.
func Main([]string, func(string) string) int {
	fmt.Fprintln(os.Stderr, "hook-loop keeper:", errUnsupported)
	return 1
}
