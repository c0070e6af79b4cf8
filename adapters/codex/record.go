package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/scaffold"
)

// CodexInstallRecord remembers what `codex install --trust` changed in Codex's
// own config, so that uninstall removes exactly that and nothing the person had
// set up before (a project they trusted themselves stays trusted).
type CodexInstallRecord struct {
	HooksPath         string   `json:"hooks_path"`
	CodexHome         string   `json:"codex_home"`
	ProjectTrustAdded bool     `json:"project_trust_added"`
	TrustedKeys       []string `json:"trusted_keys,omitempty"`
}

// CodexRecordPath is where the record lives: beside the event log.
func CodexRecordPath(dest string) string {
	return filepath.Join(dest, project.StateDir, "codex-install.json")
}

// WriteCodexRecord saves the record, keeping ProjectTrustAdded from an earlier
// install (a re-install finds the project already trusted by itself).
func WriteCodexRecord(dest string, r CodexInstallRecord) error {
	if old, err := ReadCodexRecord(dest); err == nil && old.ProjectTrustAdded && old.CodexHome == r.CodexHome {
		r.ProjectTrustAdded = true
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	if err := scaffold.WriteFileAtomic(CodexRecordPath(dest), append(b, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", CodexRecordPath(dest), err)
	}
	return nil
}

// ReadCodexRecord loads the record; os.ErrNotExist when there is none.
func ReadCodexRecord(dest string) (CodexInstallRecord, error) {
	var r CodexInstallRecord
	b, err := os.ReadFile(CodexRecordPath(dest))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", CodexRecordPath(dest), err)
	}
	return r, nil
}

// RemoveCodexRecord deletes the record.
func RemoveCodexRecord(dest string) error {
	err := os.Remove(CodexRecordPath(dest))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
