// Package pin keeps the loop definitions sessions started with. A session is
// judged by the loop it pinned at its first event, not by whatever the loop file
// holds later: the file sits in the project, where the agent the loop gates can
// delete or rewrite it. The store is content-addressed (pins/<sha256>.json) under
// hook-loop's state directory, never in the project.
package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/hook-loop/hook-loop/project/regfile"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/eventlog"
)

// Store is a directory of pinned loop definitions, one file per content hash.
type Store struct{ Dir string }

// Default is the store under eventlog.StateDir(), beside the log keys.
func Default() Store { return Store{Dir: filepath.Join(eventlog.StateDir(), "pins")} }

// Hash is the content hash a loop definition is pinned under (hex SHA-256).
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Path is where the definition with hash is kept.
func (s Store) Path(hash string) string { return filepath.Join(s.Dir, hash+".json") }

// Put keeps data and returns its hash and file. Writing is idempotent: a file
// already holding the same content is left alone, so concurrent hooks pinning
// the same loop do not race on it.
func (s Store) Put(data []byte) (hash, path string, err error) {
	hash = Hash(data)
	path = s.Path(hash)
	if got, err := s.Get(hash); err == nil && got != nil {
		return hash, path, nil
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", "", fmt.Errorf("pin loop: %w", err)
	}
	if err := regfile.WriteAtomic(path, data, 0o600); err != nil {
		return "", "", fmt.Errorf("pin loop: %w", err)
	}
	return hash, path, nil
}

// ErrMissing is returned (wrapped) by Get when the definition pinned under a
// hash cannot be had: not kept, unreadable, or edited (its content no longer
// hashes to its name). A session without its pinned loop is refused, whatever
// the loop file now says: the file may be what the agent changed.
var ErrMissing = errors.New("pinned loop not available")

// Get returns the definition pinned under hash. A file whose content no longer
// hashes to its name is not returned: a pin is trusted for its content alone.
func (s Store) Get(hash string) ([]byte, error) {
	// Read without waiting: a pin swapped for a FIFO is missing, not a hang.
	data, err := regfile.ReadFile(s.Path(hash), maxLoopFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrMissing, s.Path(hash))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMissing, s.Path(hash), err)
	}
	if Hash(data) != hash {
		return nil, fmt.Errorf("%w: %s: content does not match its hash", ErrMissing, s.Path(hash))
	}
	return data, nil
}
