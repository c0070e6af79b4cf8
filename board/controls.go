package board

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/loop/session"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/overview"
)

// Actions the board's buttons take, as in POST /api/sessions/{id}/{action}.
var actions = map[string]string{
	"approve": overview.OperatorApproved,
	"reject":  overview.OperatorRejected,
	"pause":   overview.OperatorPaused,
	"resume":  overview.OperatorResumed,
	"cancel":  overview.OperatorCancelled,
}

// Controls carries out what a person asks of a session from the board. The
// engine's operator controls implement it when they land; LogControls only
// records the request.
type Controls interface {
	Do(ctx context.Context, sessionID, action, reason string) error
}

// LogControls records each action as an operator event (actor "person") in the
// session's log, under the log's lock like every other append; the session's
// next hook is where the engine reads it.
type LogControls struct {
	Log *session.Log
}

// Do appends the operator event for action.
func (c LogControls) Do(_ context.Context, sessionID, action, reason string) error {
	typ, ok := actions[action]
	if !ok {
		return fmt.Errorf("unknown action %q", action)
	}
	return c.Log.Update(func(tx session.Tx) error {
		payload := map[string]any{"source": "board"}
		if reason != "" {
			payload["reason"] = reason
		}
		_, err := tx.Append(eventlog.Event{SessionID: sessionID, EventType: typ, Actor: "person",
			State: tx.Session(sessionID).State, Payload: payload})
		return err
	})
}
