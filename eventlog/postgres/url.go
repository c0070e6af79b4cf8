package postgres

import (
	"fmt"
	"github.com/hook-loop/hook-loop/project/identity"
	"net/url"
	"strings"
)

// Target is where an event log lives: a PostgreSQL database or a JSONL file.
type Target struct {
	URL  string // postgres://… (with any password the caller gave), "" for a file
	Path string // the JSONL file, "" for a database
}

// IsDB reports whether t is a PostgreSQL database.
func (t Target) IsDB() bool { return t.URL != "" }

// String names t for messages, without the password.
func (t Target) String() string {
	if t.IsDB() {
		return Redact(t.URL)
	}
	return t.Path
}

// ParseStoreURL reads a store setting (HOOK_LOOP_STORE, "store" in the user
// config, install --store, store migrate --to): a postgres:// or postgresql://
// URL names a database, anything else a JSONL file path.
func ParseStoreURL(s string) (Target, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Target{}, fmt.Errorf("store: expected a postgres:// URL or a file path, got an empty string")
	}
	lower := strings.ToLower(s)
	if !strings.HasPrefix(lower, "postgres://") && !strings.HasPrefix(lower, "postgresql://") {
		if i := strings.Index(s, "://"); i > 0 && !strings.ContainsAny(s[:i], `/\`) {
			return Target{}, fmt.Errorf("store %q: expected a postgres:// URL or a file path, got scheme %q", Redact(s), s[:i])
		}
		return Target{Path: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		// url.Error quotes the whole URL, password included: say only what is wrong.
		return Target{}, fmt.Errorf("store: not a valid postgres URL (%s)", urlErrReason(err))
	}
	if u.Host == "" && u.Query().Get("host") == "" {
		return Target{}, fmt.Errorf("store %s: expected a host (postgres://user@host[:port]/database)", Redact(s))
	}
	return Target{URL: s}, nil
}

func urlErrReason(err error) string {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error()
	}
	return "unparsable"
}

// Redact returns a postgres URL without its password (user info password and a
// password= parameter), for messages and for anything written to disk. The
// password belongs in PGPASSWORD or ~/.pgpass, which the driver reads.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			if j := strings.Index(raw, "://"); j >= 0 && j < i {
				return raw[:j+3] + "…" + raw[i:]
			}
		}
		return raw
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// HasPassword reports whether a postgres URL carries a password, which an install
// must not write into hook configs.
func HasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return strings.Contains(raw, "@")
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			return true
		}
	}
	return u.Query().Has("password")
}

// OpenProject opens the store at url for the project whose root is root, under
// its identity (project.Identity: $HOOK_LOOP_PROJECT, else the git origin, else
// the folder). getenv is os.Getenv outside tests.
func OpenProject[V any, P ViewOf[V]](url, root string, getenv func(string) string) (*Store[V, P], error) {
	return Open[V, P](url, Options{Project: identity.Of(root, getenv)})
}
