package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/scaffold"
)

// installRecord remembers what `codex install --trust` changed in Codex's
// own config, so that uninstall removes exactly that and nothing the person had
// set up before (a project they trusted themselves stays trusted).
type installRecord struct {
	HooksPath         string   `json:"hooks_path"`
	CodexHome         string   `json:"codex_home"`
	ProjectTrustAdded bool     `json:"project_trust_added"`
	TrustedKeys       []string `json:"trusted_keys,omitempty"`
}

// recordPath is where the record lives: beside the event log.
func recordPath(dest string) string {
	return filepath.Join(dest, project.StateDir, "codex-install.json")
}

// writeRecord saves the record, keeping ProjectTrustAdded from an earlier
// install (a re-install finds the project already trusted by itself).
func writeRecord(dest string, r installRecord) error {
	if old, err := readRecord(dest); err == nil && old.ProjectTrustAdded && old.CodexHome == r.CodexHome {
		r.ProjectTrustAdded = true
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	if err := scaffold.WriteFileAtomic(recordPath(dest), append(b, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", recordPath(dest), err)
	}
	return nil
}

// readRecord loads the record; os.ErrNotExist when there is none.
func readRecord(dest string) (installRecord, error) {
	var r installRecord
	b, err := os.ReadFile(recordPath(dest))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", recordPath(dest), err)
	}
	return r, nil
}

// removeRecord deletes the record.
func removeRecord(dest string) error {
	err := os.Remove(recordPath(dest))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
