package scaffold

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Level is how serious a doctor finding is.
type Level string

const (
	LevelOK   Level = "ok"
	LevelWarn Level = "warn"
	LevelFail Level = "fail"
)

// Finding is one line of `hook-loop doctor`: what was checked or found, and
// what to do about it (empty for ok).
type Finding struct {
	Level   Level
	Harness string
	What    string
	Fix     string
}

// DoctorEnv is what the checks look at.
type DoctorEnv struct {
	Ctx       context.Context
	Dir       string // project root (absolute)
	CodexHome string // "" = $CODEX_HOME or ~/.codex
	CodexBin  string // "" = codex on PATH (trust is checked through its app-server)
	Home      string // the user's home ("" = os.UserHomeDir)
}

// Check inspects one harness's installation.
type Check struct {
	Harness string
	Run     func(env *DoctorEnv) []Finding
}

// Checks lists every harness check, one line each; `hook-loop doctor` runs them
// in this order.
var Checks = []Check{
	{Harness: "codex", Run: CheckCodex},
	{Harness: "opencode", Run: CheckOpencode},
	{Harness: "pi", Run: CheckPi},
	{Harness: "claude", Run: CheckClaude},
}

// RunDoctor runs the checks (all, or only those of the named harnesses).
func RunDoctor(env *DoctorEnv, harnesses ...string) []Finding {
	var out []Finding
	for _, c := range Checks {
		if len(harnesses) > 0 && !contains(harnesses, c.Harness) {
			continue
		}
		for _, f := range c.Run(env) {
			if f.Harness == "" {
				f.Harness = c.Harness
			}
			out = append(out, f)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// PrintFindings writes one line per finding, with its fix indented below.
func PrintFindings(w io.Writer, fs []Finding) (fails, warns int) {
	for _, f := range fs {
		fmt.Fprintf(w, "%-4s %s: %s\n", f.Level, f.Harness, f.What)
		if f.Fix != "" {
			fmt.Fprintf(w, "     fix: %s\n", strings.ReplaceAll(f.Fix, "\n", "\n          "))
		}
		switch f.Level {
		case LevelFail:
			fails++
		case LevelWarn:
			warns++
		}
	}
	return fails, warns
}
