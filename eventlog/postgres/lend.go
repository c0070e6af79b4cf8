package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// A hook is a short-lived process: a fresh connection costs it the TCP or
// socket connect, the startup and authentication exchange, a backend fork on
// the server and that backend's cold catalog caches — several times what the
// hook's own statements cost. A Lender (internal/pgkeeper) keeps connections
// other hooks finished with and lends them, so a hook usually starts on a warm,
// authenticated backend. The store never trusts a loan more than a connection
// of its own: it runs the same statements on it, and gives it back only when
// it is idle with no transaction open; a hook that dies holding a loan holds
// its only descriptor, so the kernel closes it and the server rolls back.

// Loan is an established, idle connection and what the server told it at
// startup, so the store can go on where its first owner stopped.
type Loan struct {
	Conn      net.Conn // plaintext TCP or unix socket; never TLS (its state is in the owner's memory)
	PID       uint32
	SecretKey []byte
	Params    map[string]string // ParameterStatus values the server reported
	// Prepared names the statements (Statements) prepared on the connection,
	// which the lender vouches are those texts, prepared by the lender.
	Prepared []string
}

// Lender lends established connections to the database a key names
// (Store.LendKey) and takes them back.
type Lender interface {
	// Borrow returns an idle connection, or an error (none to lend, no lender
	// running, a lender that does not answer before ctx ends): then the store
	// connects by itself.
	Borrow(ctx context.Context, key string) (*Loan, error)
	// Give hands a clean connection (idle, no transaction) to the lender, a
	// borrowed one back or one of the store's own. It owns l.Conn from the
	// call on: on any failure it closes it. It must not block for long.
	Give(key string, l *Loan)
}

// LendKey names what a connection of this store is: the server, database,
// user, and every parameter the store set at startup (a lent connection keeps
// the settings it was opened with). Connections are lent only between stores
// with equal keys. The version names the lending protocol too (v2: the give
// goes on the borrow's socket), so hooks of another version have their own
// keeper.
func (s *Store) LendKey() string {
	h := sha256.New()
	fmt.Fprintf(h, "hook-loop lend v2\x00%s\x00%d\x00%s\x00%s\x00", s.cfg.Host, s.cfg.Port, s.cfg.Database, s.cfg.User)
	keys := make([]string, 0, len(s.cfg.RuntimeParams))
	for k := range s.cfg.RuntimeParams {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, s.cfg.RuntimeParams[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// plaintextOK reports whether the connection settings accept a connection
// without TLS (sslmode disable, allow or prefer, or a unix socket): a lent
// connection is always plaintext, so a store that requires TLS never borrows.
func plaintextOK(cfg *pgx.ConnConfig) bool {
	if cfg.TLSConfig == nil {
		return true
	}
	for _, f := range cfg.Fallbacks {
		if f.TLSConfig == nil && f.Host == cfg.Host && f.Port == cfg.Port {
			return true
		}
	}
	return false
}

// connectLoan makes a pgx connection of a lent one. pgx can only connect, so
// its dial returns the lent connection behind a shim that answers the startup
// exchange from what the lender passed (authentication ok, the parameters,
// the backend key, ready) without a byte to the server, then steps aside.
func (s *Store) connectLoan(ctx context.Context, l *Loan) (*pgx.Conn, error) {
	reply, err := startupReply(l)
	if err != nil {
		return nil, err
	}
	cfg := s.cfg.Copy()
	cfg.TLSConfig = nil
	cfg.Fallbacks = nil
	cfg.ValidateConnect = nil
	cfg.AfterConnect = nil
	cfg.LookupFunc = func(context.Context, string) ([]string, error) { return []string{"lent"}, nil }
	used := false
	cfg.DialFunc = func(context.Context, string, string) (net.Conn, error) {
		if used {
			return nil, errors.New("lent connection already used")
		}
		used = true
		return &lentConn{Conn: l.Conn, reply: bytes.NewReader(reply)}, nil
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// startupReply is what the server said after the startup message, rebuilt.
func startupReply(l *Loan) ([]byte, error) {
	buf, err := (&pgproto3.AuthenticationOk{}).Encode(nil)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(l.Params))
	for k := range l.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if buf, err = (&pgproto3.ParameterStatus{Name: k, Value: l.Params[k]}).Encode(buf); err != nil {
			return nil, err
		}
	}
	if buf, err = (&pgproto3.BackendKeyData{ProcessID: l.PID, SecretKey: l.SecretKey}).Encode(buf); err != nil {
		return nil, err
	}
	return (&pgproto3.ReadyForQuery{TxStatus: 'I'}).Encode(buf)
}

// lentConn swallows the startup message pgx writes and answers it from reply;
// after that it is the lent connection itself.
type lentConn struct {
	net.Conn
	reply   *bytes.Reader
	startup []byte // the startup message so far
	started bool   // the whole startup message was swallowed
}

func (c *lentConn) Write(p []byte) (int, error) {
	if c.started {
		return c.Conn.Write(p)
	}
	// The startup message: a 4-byte length (itself included), then the body.
	c.startup = append(c.startup, p...)
	if len(c.startup) >= 4 {
		n := int(c.startup[0])<<24 | int(c.startup[1])<<16 | int(c.startup[2])<<8 | int(c.startup[3])
		if n < 8 || n > 1<<16 {
			return 0, fmt.Errorf("lent connection: unexpected first message of %d bytes", n)
		}
		if len(c.startup) >= n {
			c.started = true
			rest := c.startup[n:]
			c.startup = nil
			if len(rest) > 0 {
				if _, err := c.Conn.Write(rest); err != nil {
					return 0, err
				}
			}
		}
	}
	return len(p), nil
}

func (c *lentConn) Read(p []byte) (int, error) {
	if c.reply.Len() > 0 {
		return c.reply.Read(p)
	}
	if !c.started {
		return 0, io.ErrUnexpectedEOF
	}
	return c.Conn.Read(p)
}

// giveBack hands conn to the lender when it is clean: open, idle, no
// transaction, nothing buffered, plaintext. It reports whether it did; if not,
// the caller closes conn as usual.
func (s *Store) giveBack(conn *pgx.Conn) bool {
	pc := conn.PgConn()
	if s.lender == nil || conn.IsClosed() || pc.IsBusy() || pc.TxStatus() != 'I' {
		return false
	}
	raw := pc.Conn()
	if lc, ok := raw.(*lentConn); ok {
		if !lc.started {
			return false
		}
		raw = lc.Conn
	}
	switch raw.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return false // TLS or something else whose state is not in the descriptor
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	// SyncConn pings only when pgx has buffered bytes the server sent unasked.
	if err := pc.SyncConn(ctx); err != nil {
		return false
	}
	hc, err := pc.Hijack()
	if err != nil {
		return false
	}
	if hc.TxStatus != 'I' {
		_ = raw.Close()
		return true
	}
	s.lender.Give(s.LendKey(), &Loan{Conn: raw, PID: hc.PID, SecretKey: hc.SecretKey, Params: hc.ParameterStatuses})
	return true
}
