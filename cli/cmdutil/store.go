package cmdutil

import (
	"fmt"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// StoreFlag is install's --store: the hooks keep the loop's log in PostgreSQL.
func StoreFlag(store *string) cli.Flag {
	return &cli.StringFlag{Name: "store", Usage: "hooks keep the loop's log in PostgreSQL at this postgres:// `URL` (written without its password: that goes in PGPASSWORD or ~/.pgpass)", Destination: store}
}

// StoreArg is what an install writes into each hook command for --store url:
// " --store <url without its password>", shell-quoted ("" for no url). note,
// when not "", tells the person where the password goes instead.
func StoreArg(url string) (arg, note string, err error) {
	safe, note, err := SafeStoreURL(url)
	return StoreArgOf(safe), note, err
}

// StoreArgOf is StoreArg's hook-command argument for an already safe url.
func StoreArgOf(safe string) string {
	if safe == "" {
		return ""
	}
	return " --store " + scaffold.ShellQuote(safe)
}

// SafeStoreURL checks an install's --store url and returns it without its
// password ("" for no url), with StoreArg's note.
func SafeStoreURL(url string) (safe, note string, err error) {
	if url == "" {
		return "", "", nil
	}
	t, err := postgres.ParseStoreURL(url)
	if err != nil {
		return "", "", Exitf(2, "usage: --store: %v", err)
	}
	if !t.IsDB() {
		return "", "", Exitf(2, "usage: --store: expected a postgres:// URL, got %q", url)
	}
	safe = postgres.Redact(t.URL)
	if postgres.HasPassword(t.URL) {
		note = fmt.Sprintf("note: the hooks are written with --store %s, without the password; give it to the hooks in PGPASSWORD or in ~/.pgpass (host:port:database:user:password, mode 0600)", safe)
	}
	return safe, note, nil
}
