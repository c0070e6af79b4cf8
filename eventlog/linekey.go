package eventlog

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// LineKey is the MAC key of one log with what its key file pinned, for stores
// of the log other than the file (eventlog/postgres): they write and check the
// same keyed lines with it (Seal, Check), so a line means the same wherever it
// is kept. A LineKey never changes once created.
type LineKey struct {
	*logline.Key
	k *logKey
}

// StoreKeyPath is the key file of the log a store other than the file names id
// (eventlog/postgres: its project and loop), under StateDir like every key.
func StoreKeyPath(id string) string {
	sum := sha256.Sum256([]byte("store\x00" + id))
	return filepath.Join(KeysDir(), hex.EncodeToString(sum[:])+".key")
}

// ReadStoreKey loads the key of store log id; (nil, nil) when it has none yet.
func ReadStoreKey(id string) (*LineKey, error) {
	k, err := readKey(StoreKeyPath(id))
	if k == nil || err != nil {
		return nil, err
	}
	return &LineKey{k.mac, k}, nil
}

// CreateStoreKey makes the key of store log id, pinning its legacy part: the
// first legacyLines lines (written before keying), whose hashes digest (see
// LegacyDigest) summarises. A concurrent creator's key wins and is returned.
func CreateStoreKey(id string, legacyLines int64, digest string) (*LineKey, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("create log key: %w", err)
	}
	k, err := writeKey(StoreKeyPath(id), &logKey{Key: hex.EncodeToString(raw), Log: "store:" + id, LegacyBytes: legacyLines, LegacySHA256: digest})
	if err != nil {
		return nil, err
	}
	return &LineKey{k.mac, k}, nil
}

// SealingKey is the key of the log file, created now (pinning the file's
// current bytes as its legacy part) when it has none. The caller holds the
// log's lock, so the pinned bytes are the file's.
func (l *Log) SealingKey() (*LineKey, error) {
	if err := l.loadKey(); err != nil {
		return nil, err
	}
	if l.key == nil {
		f, fi, err := openFile(l.path, os.O_RDONLY|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open event log: %w", err)
		}
		defer f.Close()
		if l.key, err = createKey(l.keyPath, l.path, f, fi.Size()); err != nil {
			return nil, err
		}
	}
	return &LineKey{l.key.mac, l.key}, nil
}

// Path is the key file.
func (k *LineKey) Path() string { return k.k.path }

// Legacy is the legacy part the key pinned: a count (lines for a store, bytes
// for a file) and its digest.
func (k *LineKey) Legacy() (n int64, digest string) { return k.k.LegacyBytes, k.k.LegacySHA256 }
