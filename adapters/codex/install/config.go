package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// codexConfig is the part of $CODEX_HOME/config.toml that decides whether
// hook-loop's hooks run.
type codexConfig struct {
	Path string
	// HooksDisabled names the setting that turns hooks off ("" = on).
	HooksDisabled string
	Projects      map[string]string // project path -> trust_level
	TrustedHashes map[string]string // hooks.state key -> trusted_hash
	Exists        bool
}

// readCodexConfig parses <home>/config.toml (absent = defaults).
func readCodexConfig(home string) (codexConfig, error) {
	c := codexConfig{Path: filepath.Join(home, "config.toml"), Projects: map[string]string{}, TrustedHashes: map[string]string{}}
	b, err := os.ReadFile(c.Path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", c.Path, err)
	}
	c.Exists = true
	var doc struct {
		Features map[string]any `toml:"features"`
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return c, fmt.Errorf("%s: %w", c.Path, err)
	}
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := doc.Features[k].(bool); ok && !v {
			c.HooksDisabled = "[features] " + k + " = false"
		}
	}
	for p, v := range doc.Projects {
		c.Projects[p] = v.TrustLevel
	}
	for k, v := range doc.Hooks.State {
		c.TrustedHashes[k] = v.TrustedHash
	}
	return c, nil
}

// ProjectTrusted reports whether dir (or a directory above it) is trusted.
func (c codexConfig) ProjectTrusted(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if strings.EqualFold(c.Projects[d], "trusted") {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// projectTrusted reads config.toml and reports whether dir is trusted.
func projectTrusted(home, dir string) (bool, error) {
	c, err := readCodexConfig(home)
	if err != nil {
		return false, err
	}
	return c.ProjectTrusted(dir), nil
}

// SandboxMode is the sandbox_mode Codex runs the project at dir with: the
// project's .codex/config.toml over the user's <home>/config.toml; "" when
// neither sets it.
func SandboxMode(dir, home string) string {
	for _, p := range []string{filepath.Join(dir, ".codex", "config.toml"), filepath.Join(home, "config.toml")} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var doc struct {
			SandboxMode string `toml:"sandbox_mode"`
		}
		if toml.Unmarshal(b, &doc) == nil && doc.SandboxMode != "" {
			return doc.SandboxMode
		}
	}
	return ""
}

// sandboxCovers says which sandbox mode keeps writes outside the workspace
// away ("" when the mode lets every write through).
func sandboxCovers(mode string) string {
	switch mode {
	case "workspace-write", "read-only":
		return "Codex sandbox_mode = " + mode
	}
	return ""
}
