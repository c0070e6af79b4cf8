// Package pgkeeper keeps a user's PostgreSQL connections warm between hook
// processes. A hook lives a few milliseconds; a new connection costs it the
// connect, startup and authentication, a backend fork and that backend's cold
// catalog caches — several times its own statements. The keeper is a small
// per-user process, started detached by the first hook that finds none, that
// holds connections hooks finished with and lends them to the next hooks over
// a unix socket in the user's state directory (0700; both ends check the
// other's uid with SO_PEERCRED).
//
// A loan moves the connection's descriptor (SCM_RIGHTS) and its session
// metadata (backend pid, cancel key, parameters): the keeper closes its own
// copy, so the hook holds the only one, and a hook killed mid-transaction
// closes the connection and the server rolls its transaction back. A hook
// gives a connection back only when it is idle with no transaction open, on
// the socket it borrowed on (checked when it connected, so the hook sends and
// exits without waiting); the keeper resets the session before lending it
// again (DISCARD ALL but for the store's prepared statements, which it keeps
// only as it prepared them: take, vouch) and drops it on any doubt, a
// connection still in a transaction included. The keeper
// never needs a password: it only ever holds connections hooks opened.
//
// The keeper is an optimisation the hook never waits on for long: missing,
// killed, hung or not the user's, it costs a hook at most
// postgres.BorrowTimeout before the hook connects by itself.
package pgkeeper

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Arg is the hidden first argument that makes the hook-loop binary run as a
// keeper: hook-loop __pg-keeper SOCKET KEY.
const Arg = "__pg-keeper"

// Env turns the keeper off ("off" or "0"); IdleEnv sets how long it stays up
// without a request (a Go duration; default DefaultIdle).
const (
	Env         = "HOOK_LOOP_PG_KEEPER"
	IdleEnv     = "HOOK_LOOP_PG_KEEPER_IDLE"
	DefaultIdle = 10 * time.Minute
)

// MaxIdleConns caps the connections a keeper holds; more given back are closed.
const MaxIdleConns = 4

// ErrNone is a borrow the keeper answered without a connection.
var ErrNone = errors.New("pgkeeper: no idle connection")

// Client borrows from and gives to the keeper of one state directory,
// starting it when there is none.
type Client struct {
	Dir  string        // where the sockets live: <state dir>/pgkeeper
	Exe  string        // the hook-loop binary that runs the keeper; "" never starts one
	Idle time.Duration // the keeper's idle exit, passed on when it starts one (0: its default)

	mu      sync.Mutex
	kept    *net.UnixConn // the last borrow's socket, for the give (keep)
	keptKey string
}

// New returns the client of the keeper under stateDir, or nil when the keeper
// is turned off by getenv(Env) or cannot run: only the hook-loop binary can be
// a keeper, so not inside a test binary.
func New(stateDir string, getenv func(string) string) *Client {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch strings.ToLower(strings.TrimSpace(getenv(Env))) {
	case "off", "0", "false", "no":
		return nil
	}
	exe, err := os.Executable()
	if err != nil || strings.HasSuffix(exe, ".test") {
		return nil
	}
	c := &Client{Dir: filepath.Join(stateDir, "pgkeeper"), Exe: exe}
	if d, err := time.ParseDuration(getenv(IdleEnv)); err == nil && d > 0 {
		c.Idle = d
	}
	return c
}

// socketPath is the keeper's socket for the connections of key.
func (c *Client) socketPath(key string) string {
	if len(key) > 16 {
		key = key[:16]
	}
	return filepath.Join(c.Dir, key+".sock")
}

// request and reply are the messages on the socket, one datagram each
// (SOCK_SEQPACKET), a descriptor attached to a give and to a lending reply.
type request struct {
	Op   string `json:"op"` // "borrow" or "give"
	Key  string `json:"key"`
	Meta *meta  `json:"meta,omitempty"` // give
}

type reply struct {
	OK   bool  `json:"ok"`
	Meta *meta `json:"meta,omitempty"`
}

// meta is a connection's session metadata (the startup exchange's results).
type meta struct {
	PID       uint32            `json:"pid"`
	SecretKey []byte            `json:"secret_key"`
	Params    map[string]string `json:"params"`
	Prepared  []string          `json:"prepared,omitempty"` // lend: postgres.Loan.Prepared
}
