package setup

import (
	"path/filepath"
	"strings"
)

// TrustRule is the rule of a trustedFolders.json (Gemini CLI's, and Qwen
// Code's, its fork) that decides dir: the longest folder rule dir lies in,
// where TRUST_PARENT covers its folder's parent, as their checkPathTrust reads
// them. "" when none does; else TRUST_FOLDER, TRUST_PARENT or DO_NOT_TRUST.
func TrustRule(rules map[string]string, dir string) string {
	best, level := -1, ""
	for p, l := range rules {
		eff := p
		if l == "TRUST_PARENT" {
			eff = filepath.Dir(p)
		}
		if under(dir, eff) && len(p) > best {
			best, level = len(p), l
		}
	}
	return level
}

// Trusted reports whether rule (TrustRule's answer) trusts the folder.
func Trusted(rule string) bool { return rule == "TRUST_FOLDER" || rule == "TRUST_PARENT" }

// under reports whether p is dir or lies inside it.
func under(p, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
