package main

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/internal/hookd"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
	"github.com/hook-loop/hook-loop/internal/hookrun"
)

// The client spells some of the server's names itself, to link neither.
func TestClientSpellsTheServersNames(t *testing.T) {
	if serverArg != hookd.Arg || stateDirEnv != eventlog.StateDirEnv || maxInput != hookrun.MaxInput {
		t.Errorf("client %q %q %d, server %q %q %d", serverArg, stateDirEnv, maxInput, hookd.Arg, eventlog.StateDirEnv, hookrun.MaxInput)
	}
	if stateDir([]string{stateDirEnv + "=/x"}) != "/x" {
		t.Error("stateDir ignores " + stateDirEnv)
	}
}

// The client links no more than a small Go program does: what it runs at
// every event is its process start, so no package of hook-loop's engine,
// log or adapters, and nothing with a costly package init.
func TestClientImportGraph(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH: cannot list the import graph")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{
		"github.com/hook-loop/hook-loop/cmd/hook-loop-hook": true, "github.com/hook-loop/hook-loop/project/basedir": true,
		"github.com/hook-loop/hook-loop/internal/confine": true, "github.com/hook-loop/hook-loop/internal/hookd/wire": true,
		"github.com/hook-loop/hook-loop/version": true, "golang.org/x/sys/unix": true,
	}
	// crypto/sha256 digests the environment (wire.EnvDigest); the rest of
	// crypto (TLS, certificates, keys, a random source) has no business here.
	forbidden := []string{"encoding/json", "net", "crypto/tls", "crypto/x509", "crypto/rand", "crypto/rsa", "crypto/ecdsa",
		"crypto/ed25519", "crypto/hmac", "regexp", "os/exec", "fmt/internal", "github.com/tidwall"}
	for _, p := range strings.Fields(string(out)) {
		// A module's package (a dot in its first element), not the standard
		// library's (crypto/internal/entropy/v1.0.0 has one further on).
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && !allowed[p] {
			t.Errorf("hook-loop-hook links %s", p)
		}
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("hook-loop-hook links %s", p)
			}
		}
	}
}

func TestSessionEndWaitsLess(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--event", "SessionEnd", "--config", "x"}, sessionEndStartTimeout},
		{[]string{"--config", "x", "--event=SessionEnd"}, sessionEndStartTimeout},
		{[]string{"--event", "Stop"}, startTimeout},
		{[]string{"--config", "SessionEnd"}, startTimeout},
	} {
		if got := startWait(c.args); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}

// The socket is named before the lost-event mark is dropped from the
// environment (the copy waits until after the connection): the mark must
// not change the name, as no variable the server ignores does, while one
// it compares does.
func TestSocketNameIgnoresTheLostMark(t *testing.T) {
	st := &syscall.Stat_t{Dev: 1, Ino: 2, Size: 3}
	name := func(env ...string) string {
		c := client{full: "/x/hook-loop", fullSt: st, env: env}
		sock, _, err := c.socketPath()
		if err != nil {
			t.Fatal(err)
		}
		return sock
	}
	base := []string{stateDirEnv + "=/tmp/s", "HOME=/home/u", "PATH=/bin"}
	plain := name(base...)
	if got := name(append(base, wire.LostEnv+"=a server died")...); got != plain {
		t.Errorf("with the lost mark: %s, without: %s", got, plain)
	}
	if got := name(append(base, "_=/usr/bin/codex")...); got != plain {
		t.Errorf("with _: %s, without: %s", got, plain)
	}
	if got := name(append(base, "HOOK_LOOP_MODE=audit")...); got == plain {
		t.Error("a compared variable does not change the socket's name")
	}
}
