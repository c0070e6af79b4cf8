package board

import (
	"context"
	"slices"
)

// actions are the board's buttons, as in POST /api/sessions/{id}/{action}.
var actions = []string{"approve", "reject", "pause", "resume", "cancel"}

// Controls carries out what a person asks of a session from the board;
// operator.Controls is the one implementation, shared with the CLI's commands.
// An error that matches operator.ErrRefused (errors.Is) is the session's
// state refusing the action, answered 409.
type Controls interface {
	Do(ctx context.Context, sessionID, action, reason string) error
}

func knownAction(a string) bool { return slices.Contains(actions, a) }
