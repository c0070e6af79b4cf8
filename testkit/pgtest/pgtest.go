//go:build unix

// Package pgtest starts a throwaway PostgreSQL cluster for a test: initdb in a
// temp dir, the server on a unix socket in that dir and a random loopback port,
// stopped when the test ends. PostgreSQL refuses to run as root, so under root the
// cluster belongs to the "postgres" (else "nobody") system user.
package pgtest

import (
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hook-loop/hook-loop/testkit/need"
)

// Server is one running (or stopped) throwaway cluster.
type Server struct {
	t       testing.TB
	dir     string // owned by the server's user; holds data/ and the socket
	bin     string // directory of initdb and postgres
	port    int
	asUser  string // "" when not root
	fsync   bool
	cmd     *exec.Cmd
	stopped bool
}

// Options tune the cluster.
type Options struct {
	// Fsync keeps PostgreSQL's default durable commits; tests leave it off for speed,
	// benchmarks turn it on to compare like with like.
	Fsync bool
}

// Start runs a new cluster or skips the test, saying why, when PostgreSQL's
// server binaries are missing (scripts/install-postgres.sh installs them).
// Under CI (CI=true) it fails the test instead.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	s := &Server{t: t, bin: need.PostgresBin(t), fsync: o.Fsync}
	if os.Geteuid() == 0 {
		s.asUser = "postgres"
		if _, err := user.Lookup(s.asUser); err != nil {
			s.asUser = "nobody"
		}
	}
	// Not t.TempDir: its parent is private to root, and the server's user must
	// reach its data directory.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	s.dir = dir
	t.Cleanup(func() { s.Stop(); _ = os.RemoveAll(dir) })
	if err := s.own(dir); err != nil {
		t.Fatal(err)
	}
	tmpl, err := s.template()
	if err != nil {
		need.Skipf(t, "PostgreSQL unavailable: %v", err)
	}
	if out, err := exec.Command("cp", "-a", tmpl, s.dataDir()).CombinedOutput(); err != nil {
		t.Fatalf("copy cluster template: %v\n%s", err, out)
	}
	s.port = freePort(t)
	s.Restart()
	return s
}

// template returns a freshly initdb'ed data directory to copy: initdb takes
// seconds, a copy milliseconds. It is kept across runs, one per server binary
// and user, and made in a scratch directory renamed into place so concurrent
// test binaries never see half of one.
func (s *Server) template() (string, error) {
	key := fnv.New64a()
	key.Write([]byte(s.bin + "\x00" + s.asUser))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("pgtest-template-%016x", key.Sum64()))
	if _, err := os.Stat(filepath.Join(dir, "data", "PG_VERSION")); err == nil {
		return filepath.Join(dir, "data"), nil
	}
	scratch, err := os.MkdirTemp("", "pgtest-initdb-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	if err := s.own(scratch); err != nil {
		return "", err
	}
	data := filepath.Join(scratch, "data")
	out, err := s.command(filepath.Join(s.bin, "initdb"), "-D", data, "-A", "trust", "-U", "hookloop", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("initdb failed: %v\n%s", err, out)
	}
	if err := os.Rename(scratch, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "data", "PG_VERSION")); serr != nil {
			return "", fmt.Errorf("keep cluster template: %w", err)
		}
	}
	return filepath.Join(dir, "data"), nil
}

// own makes dir traversable by everyone and owned by the server's user.
func (s *Server) own(dir string) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if s.asUser == "" {
		return nil
	}
	u, err := user.Lookup(s.asUser)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

func (s *Server) dataDir() string { return filepath.Join(s.dir, "data") }

// command runs name as the server's user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	if s.asUser == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("runuser", append([]string{"-u", s.asUser, "--", name}, args...)...)
}

// URL connects over loopback TCP to database "postgres" as the cluster's superuser.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://hookloop@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// SocketURL connects through the unix socket in the cluster's directory.
func (s *Server) SocketURL() string {
	return fmt.Sprintf("postgres://hookloop@/postgres?host=%s&port=%d", s.dir, s.port)
}

// Port is the TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Restart starts the server (again) on the same data and port and waits until it
// accepts connections.
func (s *Server) Restart() {
	s.t.Helper()
	fsync := "off"
	if s.fsync {
		fsync = "on"
	}
	s.cmd = s.command(filepath.Join(s.bin, "postgres"), "-D", s.dataDir(), "-k", s.dir, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync="+fsync, "-c", "max_connections=200")
	logf, err := os.Create(filepath.Join(s.dir, "server.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		s.t.Fatalf("start postgres: %v", err)
	}
	logf.Close()
	s.stopped = false
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.URL())
		if err == nil {
			_ = conn.Close(ctx)
			cancel()
			return
		}
		cancel()
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	s.t.Fatalf("postgres did not start within 30s:\n%s", log)
}

// Stop shuts the server down (fast: open transactions are rolled back) and waits
// for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil || s.stopped {
		return
	}
	s.stopped = true
	// Signal the postmaster itself: runuser, its parent here, need not pass it on.
	if pid := s.postmasterPID(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGINT)
	} else {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
	}
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func (s *Server) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(s.dataDir(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
