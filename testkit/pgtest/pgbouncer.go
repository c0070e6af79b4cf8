//go:build unix

package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hook-loop/hook-loop/testkit/need"
)

// Bouncer is a throwaway PgBouncer in front of a Server, on a random loopback
// port, stopped when the test ends (before its Server, which was started
// first).
type Bouncer struct {
	t       testing.TB
	s       *Server
	dir     string
	port    int
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd has been waited for
	stopped bool
}

// BouncerOptions tune the PgBouncer.
type BouncerOptions struct {
	// PoolMode is session, transaction or statement; "" is transaction, how a
	// fleet of agents shares a server's connections (docs/pgbouncer.md).
	PoolMode string
	// PoolSize is default_pool_size, the server connections per (database,
	// user); 0 is 2, fewer than a test's clients, so clients take turns on them.
	PoolSize int
	// Settings are more [pgbouncer] settings, name to value.
	Settings map[string]string
}

// StartBouncer runs a PgBouncer in front of s or skips the test, saying why,
// when the system has no pgbouncer binary (scripts/install-postgres.sh
// installs it); under CI=true a missing pgbouncer fails the test instead, so
// CI cannot pass by skipping it.
func StartBouncer(t testing.TB, s *Server, o BouncerOptions) *Bouncer {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		// Debian installs it in /usr/sbin, which a user's PATH often lacks.
		if _, serr := os.Stat("/usr/sbin/pgbouncer"); serr == nil {
			bin, err = "/usr/sbin/pgbouncer", nil
		}
	}
	if err != nil {
		need.Skipf(t, "pgbouncer unavailable (%v); run scripts/install-postgres.sh", err)
	}
	if o.PoolMode == "" {
		o.PoolMode = "transaction"
	}
	if o.PoolSize == 0 {
		o.PoolSize = 2
	}
	// Not t.TempDir, for the reason Start gives; PgBouncer, too, refuses to
	// run as root, so it runs as the server's user.
	dir, err := os.MkdirTemp("", "pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	b := &Bouncer{t: t, s: s, dir: dir, port: freePort(t)}
	t.Cleanup(func() { b.Stop(); _ = os.RemoveAll(dir) })
	if err := s.own(dir); err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{
		"listen_addr":       "127.0.0.1",
		"listen_port":       strconv.Itoa(b.port),
		"unix_socket_dir":   "",
		"auth_type":         "trust",
		"auth_file":         filepath.Join(dir, "userlist.txt"),
		"admin_users":       "hookloop",
		"pool_mode":         o.PoolMode,
		"default_pool_size": strconv.Itoa(o.PoolSize),
		"max_client_conn":   "200",
		"logfile":           filepath.Join(dir, "pgbouncer.log"),
		"pidfile":           filepath.Join(dir, "pgbouncer.pid"),
	}
	for k, v := range o.Settings {
		settings[k] = v
	}
	var ini strings.Builder
	fmt.Fprintf(&ini, "[databases]\npostgres = host=127.0.0.1 port=%d dbname=postgres\n\n[pgbouncer]\n", s.port)
	for k, v := range settings {
		fmt.Fprintf(&ini, "%s = %s\n", k, v)
	}
	conf := filepath.Join(dir, "pgbouncer.ini")
	for name, data := range map[string]string{conf: ini.String(), settings["auth_file"]: "\"hookloop\" \"\"\n"} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := s.command(bin, conf)
	out, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	out.Close()
	if err != nil {
		t.Fatalf("start pgbouncer: %v", err)
	}
	// Set only once started: Stop has nothing to stop before.
	b.cmd = cmd
	b.exited = make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(b.exited) }()
	b.wait()
	return b
}

// wait returns once the PgBouncer passes a query through to the server.
func (b *Bouncer) wait() {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if _, err = b.Show("postgres", "SELECT 1"); err == nil {
			return
		}
		select {
		case <-b.exited:
			deadline = time.Time{}
		case <-time.After(50 * time.Millisecond):
		}
	}
	errLog, _ := os.ReadFile(filepath.Join(b.dir, "stderr.log"))
	b.t.Fatalf("pgbouncer did not pass a query (%v):\n%s%s", err, b.Log(), errLog)
}

// URL connects to database "postgres" through the PgBouncer.
func (b *Bouncer) URL() string {
	return fmt.Sprintf("postgres://hookloop@127.0.0.1:%d/postgres?sslmode=disable", b.port)
}

// Show runs query on database db through the PgBouncer, over the simple query
// protocol (the only one its admin console, database "pgbouncer", speaks), and
// returns the rows as column name to text.
func (b *Bouncer) Show(db, query string) ([]map[string]string, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://hookloop@127.0.0.1:%d/%s?sslmode=disable", b.port, db))
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []map[string]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := map[string]string{}
		for i, f := range rows.FieldDescriptions() {
			row[f.Name] = fmt.Sprint(vals[i])
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// Log is what the PgBouncer has logged so far, for a failing test's message.
func (b *Bouncer) Log() string {
	log, _ := os.ReadFile(filepath.Join(b.dir, "pgbouncer.log"))
	return string(log)
}

// Stop shuts the PgBouncer down (SIGTERM: at once, its clients disconnected)
// and waits for it to exit.
func (b *Bouncer) Stop() {
	if b.cmd == nil || b.stopped {
		return
	}
	b.stopped = true
	// Signal PgBouncer itself: runuser, its parent here, need not pass it on.
	if pid := b.pid(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	} else {
		_ = b.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-b.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.exited
	}
}

func (b *Bouncer) pid() int {
	data, err := os.ReadFile(filepath.Join(b.dir, "pgbouncer.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}
