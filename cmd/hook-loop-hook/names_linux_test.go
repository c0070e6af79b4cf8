package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/internal/hookd"
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
		"github.com/hook-loop/hook-loop/cmd/hook-loop-hook": true, "github.com/hook-loop/hook-loop/internal/basedir": true,
		"github.com/hook-loop/hook-loop/internal/confine": true, "github.com/hook-loop/hook-loop/internal/hookd/wire": true,
		"github.com/hook-loop/hook-loop/internal/version": true, "golang.org/x/sys/unix": true,
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
