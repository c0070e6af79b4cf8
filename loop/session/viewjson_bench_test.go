package session

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchViews are a project's and a session's view as a hook finds them in the
// index.
var benchViews = [2]View{
	{State: "building", Events: 9876, Evidence: 12, Transitions: 4, Started: true,
		LastType: "hook_fired", FirstTimestamp: "2026-12-03T10:00:00.000000Z", LastTimestamp: "2026-12-03T11:22:33.456789Z"},
	{State: "building", Events: 1234, Evidence: 3, StopBlocks: 1, Transitions: 4, Started: true,
		Pinned:   "5f0c6b1e2d3a4f5e6d7c8b9a0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6",
		LastType: "hook_fired", FirstTimestamp: "2026-12-03T10:00:00.000000Z", LastTimestamp: "2026-12-03T11:22:33.456789Z"},
}

// hookViewWork is a hook's view work on the index: decode the project's and
// the session's view, write both back.
func hookViewWork(lines [2][]byte) error {
	for _, line := range lines {
		var v View
		if err := json.Unmarshal(line, &v); err != nil {
			return err
		}
		v.Events++
		if _, err := json.Marshal(&v); err != nil {
			return err
		}
	}
	return nil
}

func benchLines(b testing.TB) [2][]byte {
	var lines [2][]byte
	for i := range benchViews {
		data, err := json.Marshal(benchViews[i])
		if err != nil {
			b.Fatal(err)
		}
		lines[i] = data
	}
	return lines
}

// BenchmarkViewJSON is a hook's view work in a process that has done it before.
func BenchmarkViewJSON(b *testing.B) {
	lines := benchLines(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := hookViewWork(lines); err != nil {
			b.Fatal(err)
		}
	}
}

// firstUseEnv makes the test binary do a hook's view work once, as the first
// JSON work of a fresh process, print how long it took and exit.
const firstUseEnv = "SESSION_BENCH_VIEW_FIRST_USE"

func TestMain(m *testing.M) {
	if os.Getenv(firstUseEnv) == "1" {
		lines := [2][]byte{}
		for i, s := range strings.Split(os.Getenv(firstUseEnv+"_LINES"), "\n") {
			lines[i] = []byte(s)
		}
		if os.Getenv(firstUseEnv+"_WARM") == "1" {
			warmJSON()
		}
		start := time.Now()
		err := hookViewWork(lines)
		d := time.Since(start)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(d.Nanoseconds())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// warmJSON is JSON work a hook does besides the views (its answer, the loop
// file): encoding/json has been used, on types other than View.
func warmJSON() {
	type answer struct {
		Decision string         `json:"decision,omitempty"`
		Reason   string         `json:"reason,omitempty"`
		Specific map[string]any `json:"hookSpecificOutput,omitempty"`
	}
	var a answer
	_ = json.Unmarshal([]byte(`{"decision":"block","reason":"r","hookSpecificOutput":{"x":1}}`), &a)
	_, _ = json.Marshal(a)
}

// BenchmarkViewJSONFirstUse is a hook's view work as a one-shot hook does it:
// once, in a fresh process, where encoding/json has not yet seen View's type
// (cold: nor any other; warm: it has seen others). first-ns/op is the median
// of that work alone, timed inside the child.
func BenchmarkViewJSONFirstUse(b *testing.B) {
	b.Run("cold", func(b *testing.B) { benchFirstUse(b, false) })
	b.Run("warm", func(b *testing.B) { benchFirstUse(b, true) })
}

func benchFirstUse(b *testing.B, warm bool) {
	lines := benchLines(b)
	env := append(os.Environ(), firstUseEnv+"=1", firstUseEnv+"_LINES="+string(lines[0])+"\n"+string(lines[1]))
	if warm {
		env = append(env, firstUseEnv+"_WARM=1")
	}
	var samples []int64
	for b.Loop() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v", err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			b.Fatalf("child said %q: %v", out, err)
		}
		samples = append(samples, ns)
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2]), "first-ns/op")
}
