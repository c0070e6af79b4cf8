package eventlog

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// LineKey is the MAC key of one log, for stores of the log other than the file
// (eventlog/postgres): they write and check the same keyed lines with it, so a
// line means the same wherever it is kept and there is one implementation of the
// MAC. A LineKey never changes once created.
type LineKey struct{ k *logKey }

// StoreKeyPath is the key file of the log a store other than the file names id
// (eventlog/postgres: its project and loop), under StateDir like every key.
func StoreKeyPath(id string) string {
	sum := sha256.Sum256([]byte("store\x00" + id))
	return filepath.Join(StateDir(), "keys", hex.EncodeToString(sum[:])+".key")
}

// ReadStoreKey loads the key of store log id; (nil, nil) when it has none yet.
func ReadStoreKey(id string) (*LineKey, error) {
	k, err := readKey(StoreKeyPath(id))
	if k == nil || err != nil {
		return nil, err
	}
	return &LineKey{k}, nil
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
	return &LineKey{k}, nil
}

// SealingKey is the key of the log file, created now (pinning the file's
// current bytes as its legacy part) when it has none. The caller holds the
// log's lock, so the pinned bytes are the file's.
func (l *Log) SealingKey() (*LineKey, error) {
	if err := l.loadKey(); err != nil {
		return nil, err
	}
	if l.key == nil {
		f, err := openFile(l.path, os.O_RDONLY|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open event log: %w", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if l.key, err = createKey(l.keyPath, l.path, f, fi.Size()); err != nil {
			return nil, err
		}
	}
	return &LineKey{l.key}, nil
}

// Path is the key file.
func (k *LineKey) Path() string { return k.k.path }

// Legacy is the legacy part the key pinned: a count (lines for a store, bytes
// for a file) and its digest.
func (k *LineKey) Legacy() (n int64, digest string) { return k.k.LegacyBytes, k.k.LegacySHA256 }

// Seal returns the encoded event line (without its newline, ending in '}',
// without a MAC) with its MAC field appended; line is reused.
func (k *LineKey) Seal(line []byte) []byte { return k.k.seal(line) }

// Check reports whether line carries its right MAC under k.
func (k *LineKey) Check(line []byte) bool { return macOK(k.k.newMAC(), line) }

// Sum is the MAC of data under k, for a store's own records (its cached views).
func (k *LineKey) Sum(data []byte) string { return hex.EncodeToString(k.k.mac(data)) }

// HasMAC reports whether line ends in a MAC field (right or not).
func HasMAC(line []byte) bool {
	return len(line) >= macSuffixLen && bytes.HasPrefix(line[len(line)-macSuffixLen:], []byte(macField)) && bytes.HasSuffix(line, []byte(`"}`))
}

// Unsealed is line without its MAC field (line itself when it has none).
func Unsealed(line []byte) []byte {
	if !HasMAC(line) {
		return line
	}
	out := append([]byte(nil), line[:len(line)-macSuffixLen]...)
	return append(out, '}')
}

// prevField is how an encoded event's body ends when it has a prev_hash: the
// field Append writes last before the MAC.
const prevField = `,"prev_hash":"`

// Rechain returns line (a keyed or unkeyed event line) with its MAC removed and
// its prev_hash replaced by prev ("" for a session's first event), sealed under
// k: what copying a line into a log with another key needs, since the MAC
// covers prev_hash and so each line's hash. ok is false when line does not end
// the way Append writes it (so its prev_hash cannot be replaced in place).
func Rechain(k *LineKey, line []byte, prev string) (out []byte, ok bool) {
	body := Unsealed(line)
	body = body[:len(body)-1] // without '}'
	n := len(prevField) + 2*sha256.Size + 1
	if len(body) >= n && bytes.HasPrefix(body[len(body)-n:], []byte(prevField)) && body[len(body)-1] == '"' {
		body = body[:len(body)-n]
	} else if bytes.Contains(body, []byte(`"prev_hash":`)) {
		return nil, false
	}
	out = append([]byte(nil), body...)
	if prev != "" {
		out = append(out, prevField...)
		out = append(out, prev...)
		out = append(out, '"')
	}
	out = append(out, '}')
	return k.Seal(out), true
}

// Core is line without its MAC and prev_hash: what stays the same when a line
// is copied into a log with another key (Rechain), so copies can be compared.
func Core(line []byte) []byte {
	body := Unsealed(line)
	body = body[:len(body)-1]
	n := len(prevField) + 2*sha256.Size + 1
	if len(body) >= n && bytes.HasPrefix(body[len(body)-n:], []byte(prevField)) {
		body = body[:len(body)-n]
	}
	return body
}
