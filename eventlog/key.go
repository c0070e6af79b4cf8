package eventlog

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/project/basedir"
)

// StateDirEnv overrides where hook-loop keeps per-user state (the log keys):
// by default $XDG_STATE_HOME/hook-loop.
const StateDirEnv = basedir.StateDirEnv

// StateDir is the directory hook-loop keeps per-user state in.
func StateDir() string { return basedir.HookLoopState(os.Getenv) }

// KeysDir is the folder of the logs' keys in StateDir: the guard refuses it
// to every program, so it must be named in one place only.
func KeysDir() string { return filepath.Join(StateDir(), "keys") }

// logKey is the key of one log and what hook-loop recorded when it created it:
// the log's bytes before its first keyed line (legacy lines), which stay
// acceptable exactly as they were.
type logKey struct {
	Key          string `json:"key"` // hex
	Log          string `json:"log"` // the absolute log path the key belongs to
	LegacyBytes  int64  `json:"legacy_bytes"`
	LegacySHA256 string `json:"legacy_sha256"`

	mac  *logline.Key
	path string // the key file
}

// KeyPath is the key file of the log at path: one key per log (per project),
// named by the SHA-256 of the log's absolute path with its directory's links
// resolved (a hook and a person's `status` may spell it differently), under
// StateDir — never inside the project, where the agent the log judges can write.
func KeyPath(logPath string) (string, error) {
	abs, err := filepath.Abs(logPath)
	if err != nil {
		return "", fmt.Errorf("key for %s: %w", logPath, err)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(KeysDir(), hex.EncodeToString(sum[:])+".key"), nil
}

// readKey loads the key of the log; (nil, nil) when none was created yet.
func readKey(path string) (*logKey, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read log key: %w", err)
	}
	k := &logKey{path: path}
	if err := decodeKey(data, k); err != nil {
		return nil, fmt.Errorf("log key %s: %w", path, err)
	}
	raw, err := hex.DecodeString(k.Key)
	if err == nil {
		k.mac, err = logline.NewKey(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("log key %s: key: expected 64 hex digits", path)
	}
	return k, nil
}

// createKey makes the log's key, pinning the log's current size bytes (read
// from f) as its legacy part. Two processes may race here (the lock is per log,
// and a key outlives logs): the key appears under its name at once, whole, via
// link, and the loser uses the winner's.
func createKey(path, logPath string, f io.ReaderAt, size int64) (*logKey, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("create log key: %w", err)
	}
	abs, _ := filepath.Abs(logPath)
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, size)); err != nil {
		return nil, fmt.Errorf("create log key: read %s: %w", logPath, err)
	}
	return writeKey(path, &logKey{Key: hex.EncodeToString(raw), Log: abs, LegacyBytes: size, LegacySHA256: hex.EncodeToString(h.Sum(nil))})
}

// writeKey stores k under path unless a key is there already, and returns the
// one that is.
func writeKey(path string, k *logKey) (*logKey, error) {
	data, _ := json.Marshal(k)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create log key directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return nil, fmt.Errorf("create log key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("create log key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create log key %s: %w", path, err)
	}
	k2, err := readKey(path)
	if err == nil && k2 == nil {
		err = fmt.Errorf("log key %s vanished after creation", path)
	}
	return k2, err
}

// TamperNote is one event line that is not honoured: its MAC is wrong or
// missing where the log is keyed, or it does not continue its session's chain.
// The session's summary skips it, as if it were not there.
type TamperNote struct {
	Line    int    `json:"line"`
	Session string `json:"session"` // "" when it concerns the whole log
	Reason  string `json:"reason"`
	// New marks a note found in this call (the line was folded now); a note read
	// from the index was reported by an earlier call.
	New bool `json:"-"`
	// Pending keeps New in the index for a note that no Update has handed to
	// its caller yet (found by a View, or by a rebuild that ran out of budget
	// before its Update's fn ran), so the next Update reports it as new.
	Pending bool `json:"pending,omitempty"`
}

func (n TamperNote) String() string { return fmt.Sprintf("line %d: %s", n.Line, n.Reason) }

// hasTamperNote reports whether session id has a note already.
func (st *state) hasTamperNote(id string) bool {
	for _, n := range st.hdr.Tamper {
		if n.Session == id {
			return true
		}
	}
	return false
}

// maxTamperNotes bounds what the index keeps: the first notes name the attack;
// a flood of forged lines must not grow every hook's read.
const maxTamperNotes = 64

// judge is the verdict on one event line: "" when it is honoured, else why not.
// Rules (package doc): a line with a MAC counts when the MAC is right and its
// prev_hash is its session's last honoured line; a line without one counts only
// inside the legacy part the key pinned (or anywhere while the log has no key).
type judge struct {
	key *logKey
	// legacy reports whether the log still holds its pinned legacy part; it
	// reads that part once, when a line in it is judged.
	legacy     func() bool
	unverified bool // no key: take keyed lines on trust (read-only display)
	trusted    int  // keyed lines so taken
	legacyDone bool
	legacyOK   bool
	m          hash.Hash // the key's HMAC, reused line after line
}

// macChecked is verdict's argument when the line's MAC was checked already.
type macChecked int8

const (
	macUnchecked macChecked = iota
	macGood
	macBad
)

func (j *judge) verdict(line []byte, e *Event, start int64, lastHash string, checked macChecked) string {
	if e.MAC == "" {
		if j.key == nil {
			return ""
		}
		if start >= j.key.LegacyBytes {
			return fmt.Sprintf("no MAC: the log is keyed from byte %d on, so this line was not written by hook-loop (forged, or by an older hook-loop)", j.key.LegacyBytes)
		}
		if !j.legacyDone {
			j.legacyDone, j.legacyOK = true, j.legacy()
		}
		if !j.legacyOK {
			return fmt.Sprintf("no MAC, and the log's first %d bytes (its lines from before keying) are not the ones hook-loop pinned in %s: rewritten or replaced", j.key.LegacyBytes, j.key.path)
		}
		return ""
	}
	if j.key == nil {
		if j.unverified {
			j.trusted++
			return ""
		}
		return "has a MAC but this log has no key here (written on another machine, the project moved, HOME or " + StateDirEnv + " differs from the hooks', or forged)"
	}
	if checked == macUnchecked {
		if j.m == nil {
			j.m = j.key.mac.NewMAC()
		}
		checked = macBad
		if logline.CheckWith(j.m, line) {
			checked = macGood
		}
	}
	if checked != macGood {
		return "MAC does not match the line: forged or edited"
	}
	if e.PrevHash != lastHash {
		return fmt.Sprintf("MAC is right but prev_hash %.12s… is not the session's last line: replayed, reordered, or an earlier line was removed", e.PrevHash)
	}
	return ""
}

// legacyCheck returns a judge.legacy for key over the log file f of size bytes.
func legacyCheck(key *logKey, f io.ReaderAt, size int64) func() bool {
	return func() bool {
		if key.LegacyBytes > size {
			return false
		}
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, 0, key.LegacyBytes)); err != nil {
			return false
		}
		return hex.EncodeToString(h.Sum(nil)) == key.LegacySHA256
	}
}

// chainMAC is the MAC of an index record: the previous record's MAC (hex, ""
// for the first) and then the body.
func (k *logKey) chainMAC(prev string, body []byte) []byte {
	m := k.mac.NewMAC()
	m.Write([]byte(prev))
	m.Write(body)
	return m.Sum(nil)
}
