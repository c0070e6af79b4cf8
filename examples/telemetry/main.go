// Command telemetry is a lifecycle hook that only observes: it appends one JSON
// line per point to a file and never changes a decision.
//
// The file is the entry's `with.file`, else $HOOK_LOOP_TELEMETRY_FILE.
//
//	{"name": "telemetry", "command": ["./telemetry"], "with": {"file": "/tmp/loop.jsonl"}}
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

type telemetry struct{}

func (telemetry) record(point string, f hooks.Facts, extra map[string]any) error {
	path, _ := f.With["file"].(string)
	if path == "" {
		path = os.Getenv("HOOK_LOOP_TELEMETRY_FILE")
	}
	if path == "" {
		return fmt.Errorf("telemetry: no file (set with.file or HOOK_LOOP_TELEMETRY_FILE)")
	}
	line := map[string]any{
		"at": time.Now().UTC().Format(time.RFC3339Nano), "point": point,
		"loop_id": f.LoopID, "session_id": f.SessionID, "harness": f.Harness, "state": f.State, "actor": f.Actor,
	}
	for k, v := range extra {
		line[k] = v
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer fh.Close()
	_, err = fh.Write(append(b, '\n'))
	return err
}

func (t telemetry) LoopStart(_ context.Context, c *hooks.LoopStartContext) error {
	return t.record(hooks.PointLoopStart, c.Facts, nil)
}

func (t telemetry) SessionStart(_ context.Context, c *hooks.SessionStartContext) error {
	return t.record(hooks.PointSessionStart, c.Facts, map[string]any{"source": c.Source})
}

func (t telemetry) SessionSpawned(_ context.Context, c *hooks.SessionSpawnedContext) error {
	return t.record(hooks.PointSessionSpawned, c.Facts, map[string]any{"event": c.Event})
}

func (t telemetry) InputReceived(_ context.Context, c *hooks.InputReceivedContext) error {
	return t.record(hooks.PointInputReceived, c.Facts, map[string]any{"prompt_bytes": len(c.Prompt)})
}

func (t telemetry) ToolRequested(_ context.Context, c *hooks.ToolRequestedContext) error {
	return t.record(hooks.PointToolRequested, c.Facts, map[string]any{"tool_name": c.ToolName})
}

func (t telemetry) PhaseChanged(_ context.Context, c *hooks.PhaseChangedContext) error {
	return t.record(hooks.PointPhaseChanged, c.Facts, map[string]any{"from": c.From, "to": c.To, "event": c.Event})
}

func (t telemetry) WaitingForInput(_ context.Context, c *hooks.WaitingForInputContext) error {
	return t.record(hooks.PointWaitingForInput, c.Facts, nil)
}

func (t telemetry) LoopComplete(_ context.Context, c *hooks.LoopCompleteContext) error {
	return t.record(hooks.PointLoopComplete, c.Facts, map[string]any{"final_state": c.FinalState, "outcome": c.Outcome})
}

func main() { os.Exit(hooks.ServeStdio(telemetry{})) }
