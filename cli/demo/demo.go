// Package demo replays a recorded real Codex session through the embedded
// plan_execute loop, so that the first command a newcomer runs shows hook-loop
// deciding real events without an agent, a model or an API key.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/cli/replay"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/project"
)

// CodexTrace is a real `codex exec` session (Codex CLI 0.169 against the
// repository's mock model), recorded with `hook-loop codex install --record`
// by the e2e test TestCodexRecordDemo, with its temp paths normalised.
//
//go:embed testdata/codex-plan_execute.jsonl
var CodexTrace []byte

// RecordedRoot is the project directory the trace names.
const RecordedRoot = "/work/demo-project"

// Loop is the gallery loop the demo runs.
const Loop = "plan_execute"

// Result is how the demo ended.
type Result struct {
	Dir     string // the temp project it ran in (removed unless kept)
	State   string
	Outcome string
	Events  int
}

// Run replays the trace in a fresh temp project and prints each event, the
// decision and the state to w. When keep is false the project is removed.
func Run(ctx context.Context, w io.Writer, keep bool) (Result, error) {
	var res Result
	dir, err := os.MkdirTemp("", "hook-loop-demo-")
	if err != nil {
		return res, err
	}
	res.Dir = dir
	if !keep {
		defer os.RemoveAll(dir)
	}
	dsl, err := gallery.Get(Loop)
	if err != nil {
		return res, err
	}
	cfg := project.ConfigPath(dir)
	if err := os.WriteFile(cfg, dsl, 0o644); err != nil {
		return res, err
	}
	if err := os.MkdirAll(filepath.Dir(project.LogPath(dir)), 0o755); err != nil {
		return res, err
	}
	spec, _, err := loopdsl.Load(cfg)
	if err != nil {
		return res, fmt.Errorf("embedded %s loop: %w", Loop, err)
	}
	lines, err := replay.ParseTrace("codex-plan_execute.jsonl", bytes.NewReader(CodexTrace))
	if err != nil {
		return res, err
	}
	fmt.Fprintf(w, "hook-loop demo: a recorded Codex CLI session replayed through the %q loop\n", Loop)
	fmt.Fprintf(w, "(no agent, no model: each line is a real hook event, hook-loop's decision and the loop state after it)\n\n")
	sum, err := replay.Run(ctx, replay.Options{
		Spec:     spec,
		Adapters: map[string]harness.Adapter{"codex": codex.New()},
		Harness:  "codex",
		LogPath:  project.LogPath(dir),
		Root:     dir,
		Rebase:   RecordedRoot,
	}, lines, func(s replay.Step) { replay.Print(w, s) })
	if err != nil {
		return res, err
	}
	res.State, res.Outcome, res.Events = sum.State, sum.Outcome, len(lines)
	fmt.Fprintf(w, "\nfinal state: %s", res.State)
	if res.Outcome != "" {
		fmt.Fprintf(w, " (outcome: %s)", res.Outcome)
	}
	fmt.Fprintln(w)
	return res, nil
}

// Hint is the demo's closing advice, for where the demo leaves the user:
// dir is the kept project ("" = removed); onPath tells whether a hook-loop is
// on PATH — after `go run . demo` in a checkout there is none, so the advice
// starts by installing it from there.
func Hint(dir string, onPath bool) string {
	var b strings.Builder
	if !onPath {
		b.WriteString("hook-loop is not on your PATH yet (go run builds a throwaway binary); from this checkout:\n" +
			"  go install . ./cmd/hook-loop-hook    # into $(go env GOPATH)/bin: put that on your PATH\n" +
			"  (or: npm install -g hook-loop, see the README's Install)\n")
	}
	if dir != "" {
		fmt.Fprintf(&b, "project kept in %s: try `cd %s && hook-loop status`\n", dir, dir)
		return b.String()
	}
	fmt.Fprintf(&b, "set up your own project: cd to it, then hook-loop install codex --profile %s --write --trust\n", Loop)
	return b.String()
}
