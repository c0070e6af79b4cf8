package cmd

import (
	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/internal/hookrun"
)

// adapters returns a fresh adapter per harness name; replay and demo pick from it.
func adapters() map[string]hookrun.Adapter {
	return map[string]hookrun.Adapter{
		"codex":    codex.New(),
		"claude":   claude.New(),
		"opencode": opencode.New(),
		"pi":       pi.New(),
	}
}
