package hook

import (
	"errors"
	"fmt"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/tidwall/gjson"
)

// failure turns an error into the harness's answer, one line on stderr
// saying what failed. A stop is refused (engine.Failure) until the failures
// have refused as many in a row as the cap allows; then it is let through,
// and the person is told loudly.
func (r *Runner) failure(e *event, err error) harness.Output {
	var d loop.Decision
	var closed *closedError
	var notSetUp *notSetUpError
	switch {
	case errors.As(err, &notSetUp):
		d = loop.Decision{Action: loop.Allow, SystemMessage: engine.FailureMessage(err) + " (the agent proceeds)"}
	case errors.As(err, &closed):
		d = engine.Refusal(e.ev.Name, err, closed.why)
	default:
		failClosed, loaded := e.failClosed()
		d = engine.Failure(e.ev.Name, err, failClosed, loaded)
	}
	if d.Action == loop.Block && engine.IsStop(e.ev.Name) {
		msg := engine.FailureMessage(err)
		var spec *dsl.Spec
		if e.file != nil {
			spec, _ = e.file.Spec()
		}
		if gaveWay, n := r.stops.refused(e.paths.root, engine.SessionKey(e.ev.SessionID), failureStopLimit(spec), msg); gaveWay {
			d = loop.Decision{Action: loop.Allow, SystemMessage: fmt.Sprintf("hook-loop: THE GATE GAVE WAY: %d stops in a row were refused because hook-loop failed, and the cap lets the agent stop now. Last failure: %s. Fix it, then look at the session with `hook-loop status`.", n, msg)}
		}
	}
	out := e.req.Adapter.Encode(e.ev, d)
	out.Stderr = appendLine(out.Stderr, engine.FailureMessage(err))
	return out
}

// failClosed is the loop's fail_closed as far as the loop file says it:
// from the parsed loop when it loads (loaded), else straight from its JSON,
// so that a broken loop that asked to fail closed still does.
func (e *event) failClosed() (failClosed, loaded bool) {
	if e.file == nil {
		e.file = pin.ReadFile(e.paths.config)
	}
	if e.file.Err != nil {
		return false, false
	}
	if spec, err := e.file.Spec(); err == nil {
		return spec.Definition.FailClosed, true
	}
	if !gjson.ValidBytes(e.file.Data) {
		return false, false
	}
	return gjson.GetBytes(e.file.Data, "loop.fail_closed").Bool(), false
}

// logError names what failed with the event log or the session's loop.
func logError(paths resolved, err error) error {
	var gone *pin.GoneError
	var bad *dsl.LoadError
	switch {
	case errors.As(err, &bad):
		return err // it names the loop file
	case errors.As(err, &gone), errors.Is(err, pin.ErrMissing):
		// Without its loop the gate is open: refused whatever fail_closed says.
		return &closedError{error: err, why: " (without its loop the gate would be open, so hook-loop refuses whatever fail_closed says)"}
	case errors.Is(err, eventlog.ErrLockTimeout):
		return err // one line that names the lock and the wait
	}
	return fmt.Errorf("event log %s: %w", paths.log, err)
}

// notSetUpError is a hook run where hook-loop was never set up: no loop file,
// none named by the hook, no log. Nothing is gated there.
type notSetUpError struct{ path string }

func (e *notSetUpError) Error() string {
	return e.path + ": no loop file here, and no hook names one (hook-loop is not set up in this project)"
}

// closedError is a failure that refuses stops and tool calls even in a loop
// that is not fail_closed.
type closedError struct {
	error
	why string // what the refusal's reason adds
}

func (e *closedError) Unwrap() error { return e.error }
