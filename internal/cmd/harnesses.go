package cmd

import (
	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/pi"
)

// adapters returns a fresh adapter per harness name; replay and demo pick from it.
func adapters() map[string]harness.Adapter {
	return map[string]harness.Adapter{
		"codex":    codex.New(),
		"claude":   claude.New(),
		"opencode": opencode.New(),
		"pi":       pi.New(),
	}
}
