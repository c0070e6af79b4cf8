//go:build linux

package hookd

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
)

// pool keeps the server's own PostgreSQL connections between hooks: the
// store gives a connection back only idle with no transaction open, and
// this process alone ever held it, so it is lent again as it is, prepared
// statements and all — without the keeper's round trips and reset, which a
// connection passed between processes needs.
type pool struct {
	mu   sync.Mutex
	idle map[string][]pooled
}

type pooled struct {
	loan  *postgres.Loan
	since time.Time
}

// poolMax bounds the connections kept per database; poolIdle is how long one
// is kept unused (the server, not the database, should be what idles out).
const (
	poolMax  = 2
	poolIdle = 5 * time.Minute
)

var errNoneIdle = errors.New("hookd: no idle connection")

func newPool() *pool { return &pool{idle: map[string][]pooled{}} }

func (p *pool) Borrow(_ context.Context, key string) (*postgres.Loan, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := p.idle[key]; len(l) > 0; l = p.idle[key] {
		c := l[len(l)-1]
		p.idle[key] = l[:len(l)-1]
		if time.Since(c.since) < poolIdle {
			return c.loan, nil
		}
		_ = c.loan.Conn.Close()
	}
	return nil, errNoneIdle
}

func (p *pool) Give(key string, l *postgres.Loan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[key]) >= poolMax {
		_ = l.Conn.Close()
		return
	}
	p.idle[key] = append(p.idle[key], pooled{l, time.Now()})
}

// close drops every kept connection.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.idle {
		for _, c := range l {
			_ = c.loan.Conn.Close()
		}
		delete(p.idle, k)
	}
}
