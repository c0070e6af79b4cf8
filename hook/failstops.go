package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/project/regfile"
)

// TypeGateGaveWay is the log record of stops that failures refused until the
// cap let the agent stop, written once the log works again.
const TypeGateGaveWay = "gate_gave_way"

// failedStops counts, per project and session, the stops refused because
// hook-loop failed. They cannot be counted in the log (it may be what
// failed), so they are counted in the user's state directory, outside the
// workspace, where neither the failure nor the agent resets them.
type failedStops struct{ dir string }

// failedStopsRecord is one session's count.
type failedStopsRecord struct {
	Refused  int    `json:"refused"`
	GaveWay  string `json:"gave_way,omitempty"` // why the cap let the agent stop
	Since    string `json:"since"`
	Project  string `json:"project"`
	Session  string `json:"session"`
	LastWhat string `json:"last_failure"`
}

func newFailedStops(stateDir string) failedStops {
	return failedStops{dir: filepath.Join(stateDir, "failed-stops")}
}

func (f failedStops) path(root, sid string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + sid))
	return filepath.Join(f.dir, hex.EncodeToString(sum[:16])+".json")
}

// read is the record of root's session sid (zero when there is none).
func (f failedStops) read(root, sid string) (failedStopsRecord, error) {
	var rec failedStopsRecord
	data, err := regfile.ReadFile(f.path(root, sid), 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w", f.path(root, sid), err)
	}
	return rec, nil
}

func (f failedStops) write(root, sid string, rec failedStopsRecord) error {
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return regfile.WriteAtomic(f.path(root, sid), data, 0o600)
}

// refused notes one more stop refused for failure why and says whether the
// cap is reached: then the stop is let through, and the record keeps why
// until the log can say so. A count that cannot be kept is never a reason
// to let the agent stop.
func (f failedStops) refused(root, sid string, limit int, why string) (gaveWay bool, count int) {
	rec, err := f.read(root, sid)
	if err != nil {
		return false, 0
	}
	if rec.Refused == 0 {
		rec.Since = time.Now().UTC().Format(time.RFC3339)
	}
	rec.Refused++
	rec.Project, rec.Session, rec.LastWhat = root, sid, why
	if limit > 0 && rec.Refused >= limit {
		rec.GaveWay = why
	}
	if err := f.write(root, sid, rec); err != nil {
		return false, rec.Refused
	}
	return rec.GaveWay != "", rec.Refused
}

// clear ends root's session sid's run of failed stops, now that its hook
// worked: a gate that gave way is recorded in the log first. A record that
// cannot be read is removed, never a failure of the event: that would turn
// every later hook of the session into a failure, which lets tool calls of a
// fail-open loop through unchecked.
func (f failedStops) clear(tx interface {
	Append(eventlog.Event) (eventlog.Event, error)
}, root, sid, state string) error {
	rec, err := f.read(root, sid)
	if errors.Is(err, fs.ErrNotExist) || err == nil && rec.Refused == 0 {
		return nil
	}
	// Removed first, so that a record kept by a failed removal is not
	// written to the log twice.
	if rerr := os.Remove(f.path(root, sid)); rerr != nil || err != nil || rec.GaveWay == "" {
		return nil
	}
	_, err = tx.Append(eventlog.Event{SessionID: sid, State: state, EventType: TypeGateGaveWay, Actor: "hook-loop",
		Payload: map[string]any{"refused": rec.Refused, "since": rec.Since, "why": rec.GaveWay}})
	return err
}

// failureStopLimit is how many stops in a row a failure may refuse before the
// stop is let through: the loop's max_stop_blocks when that is stricter (0,
// never; or more than the default), else the default. The loop file is the
// agent's to edit, so it can only make the gate hold longer.
func failureStopLimit(spec *dsl.Spec) int {
	if spec == nil {
		return dsl.DefaultMaxStopBlocks
	}
	m := spec.Definition.MaxStopBlocks
	if m == 0 || m > dsl.DefaultMaxStopBlocks {
		return m
	}
	return dsl.DefaultMaxStopBlocks
}
