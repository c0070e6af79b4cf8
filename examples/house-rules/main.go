// Command house-rules is a lifecycle hook that prepends your house rules to the
// text hook-loop injects when a session starts.
//
// The rules come from the entry's `with`: {"rules": "text"} or {"file": "/path"};
// without either, a short default applies.
//
//	{"name": "house-rules", "command": ["./house-rules"], "on": ["session_start"],
//	 "with": {"rules": "Never push to main."}}
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

const defaultRules = "House rules: small commits, tests with every change, no secrets in the tree."

type houseRules struct{}

func (houseRules) SessionStart(_ context.Context, c *hooks.SessionStartContext) error {
	rules := defaultRules
	if s, ok := c.With["rules"].(string); ok && s != "" {
		rules = s
	}
	if path, ok := c.With["file"].(string); ok && path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("house rules: %w", err)
		}
		rules = strings.TrimSpace(string(b))
	}
	if c.Context == "" {
		c.Context = rules
	} else {
		c.Context = rules + "\n\n" + c.Context
	}
	return nil
}

func main() { os.Exit(hooks.ServeStdio(houseRules{})) }
