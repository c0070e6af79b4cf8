package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// One interface per point: a handler implements only the points it cares about,
// and every other point passes through. A method edits c's decision fields in
// place; returning an error makes the call that hook's failure.

// LoopStarter handles loop_start.
type LoopStarter interface {
	LoopStart(ctx context.Context, c *LoopStartContext) error
}

// SessionStarter handles session_start.
type SessionStarter interface {
	SessionStart(ctx context.Context, c *SessionStartContext) error
}

// SessionSpawnedHandler handles session_spawned.
type SessionSpawnedHandler interface {
	SessionSpawned(ctx context.Context, c *SessionSpawnedContext) error
}

// InputReceiver handles input_received.
type InputReceiver interface {
	InputReceived(ctx context.Context, c *InputReceivedContext) error
}

// ToolRequester handles tool_requested.
type ToolRequester interface {
	ToolRequested(ctx context.Context, c *ToolRequestedContext) error
}

// PhaseChanger handles phase_changed.
type PhaseChanger interface {
	PhaseChanged(ctx context.Context, c *PhaseChangedContext) error
}

// InputWaiter handles waiting_for_input.
type InputWaiter interface {
	WaitingForInput(ctx context.Context, c *WaitingForInputContext) error
}

// LoopCompleter handles loop_complete.
type LoopCompleter interface {
	LoopComplete(ctx context.Context, c *LoopCompleteContext) error
}

// Handles reports whether handler implements the method of point.
func Handles(handler any, point string) bool {
	switch point {
	case PointLoopStart:
		_, ok := handler.(LoopStarter)
		return ok
	case PointSessionStart:
		_, ok := handler.(SessionStarter)
		return ok
	case PointSessionSpawned:
		_, ok := handler.(SessionSpawnedHandler)
		return ok
	case PointInputReceived:
		_, ok := handler.(InputReceiver)
		return ok
	case PointToolRequested:
		_, ok := handler.(ToolRequester)
		return ok
	case PointPhaseChanged:
		_, ok := handler.(PhaseChanger)
		return ok
	case PointWaitingForInput:
		_, ok := handler.(InputWaiter)
		return ok
	case PointLoopComplete:
		_, ok := handler.(LoopCompleter)
		return ok
	}
	return false
}

// dispatch calls handler's method for point with c (a pointer to that point's
// context). It reports false when the handler does not implement the point.
func dispatch(ctx context.Context, handler any, point string, c any) (handled bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			handled, err = true, fmt.Errorf("hook panicked: %v", r)
		}
	}()
	switch point {
	case PointLoopStart:
		if h, ok := handler.(LoopStarter); ok {
			return true, h.LoopStart(ctx, c.(*LoopStartContext))
		}
	case PointSessionStart:
		if h, ok := handler.(SessionStarter); ok {
			return true, h.SessionStart(ctx, c.(*SessionStartContext))
		}
	case PointSessionSpawned:
		if h, ok := handler.(SessionSpawnedHandler); ok {
			return true, h.SessionSpawned(ctx, c.(*SessionSpawnedContext))
		}
	case PointInputReceived:
		if h, ok := handler.(InputReceiver); ok {
			return true, h.InputReceived(ctx, c.(*InputReceivedContext))
		}
	case PointToolRequested:
		if h, ok := handler.(ToolRequester); ok {
			return true, h.ToolRequested(ctx, c.(*ToolRequestedContext))
		}
	case PointPhaseChanged:
		if h, ok := handler.(PhaseChanger); ok {
			return true, h.PhaseChanged(ctx, c.(*PhaseChangedContext))
		}
	case PointWaitingForInput:
		if h, ok := handler.(InputWaiter); ok {
			return true, h.WaitingForInput(ctx, c.(*WaitingForInputContext))
		}
	case PointLoopComplete:
		if h, ok := handler.(LoopCompleter); ok {
			return true, h.LoopComplete(ctx, c.(*LoopCompleteContext))
		}
	}
	return false, nil
}

// Call runs handler at point on params (the context as JSON) and returns the
// decisions it changed, or nil when it changed none or does not handle the point.
func Call(ctx context.Context, handler any, point string, params json.RawMessage) (map[string]any, error) {
	p, ok := Lookup(point)
	if !ok {
		return nil, fmt.Errorf("unknown point %q", point)
	}
	c := p.New()
	if len(bytes.TrimSpace(params)) > 0 && !bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		if err := json.Unmarshal(params, c); err != nil {
			return nil, fmt.Errorf("params of %s: %w", point, err)
		}
	}
	before := Decisions(c)
	handled, err := dispatch(ctx, handler, point, c)
	if err != nil || !handled {
		return nil, err
	}
	changed := map[string]any{}
	for k, v := range Decisions(c) {
		if !reflect.DeepEqual(before[k], v) {
			changed[k] = v
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	return changed, nil
}

// JSON-RPC 2.0 error codes used in answers.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeHookFailed     = -32000
)

// Request is one JSON-RPC 2.0 request as hook-loop sends it.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response is one JSON-RPC 2.0 response. Result is the JSON null or an object of
// the decisions that changed.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC 2.0 error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// HandleRequest is the server half of the wire, usable from any HTTP framework or
// transport: body is one JSON-RPC 2.0 request, the answer is one response. A point
// the handler does not implement answers result null; an unknown method, bad
// params or a hook's error answer a JSON-RPC error.
func HandleRequest(ctx context.Context, handler any, body []byte) []byte {
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		return encode(Response{ID: json.RawMessage("null"), Error: &Error{CodeParseError, "parse error: " + err.Error()}})
	}
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return encode(Response{ID: id, Error: &Error{CodeInvalidRequest, `invalid request: want "jsonrpc":"2.0" and a method`}})
	}
	if _, ok := Lookup(req.Method); !ok {
		return encode(Response{ID: id, Error: &Error{CodeMethodNotFound, fmt.Sprintf("method not found: %q is not a lifecycle point", req.Method)}})
	}
	changed, err := Call(ctx, handler, req.Method, req.Params)
	if err != nil {
		return encode(Response{ID: id, Error: &Error{CodeHookFailed, err.Error()}})
	}
	result := json.RawMessage("null")
	if changed != nil {
		b, err := json.Marshal(changed)
		if err != nil {
			return encode(Response{ID: id, Error: &Error{CodeHookFailed, err.Error()}})
		}
		result = b
	}
	return encode(Response{ID: id, Result: result})
}

func encode(r Response) []byte {
	r.JSONRPC = "2.0"
	b, err := json.Marshal(r)
	if err != nil {
		// Only a non-JSON id could get here; answer without it.
		b, _ = json.Marshal(Response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &Error{CodeInvalidRequest, "invalid id"}})
	}
	return b
}
