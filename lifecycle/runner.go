package lifecycle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// Record types the runner produces.
const (
	RecordFailed     = "hooks.failed"
	RecordDecided    = "hooks.decided"
	RecordRefused    = "hooks.refused"
	RecordLoadFailed = "hooks.load_failed"
)

// Runner calls the declared executors. The zero Runner has no hooks; it is safe
// for concurrent use.
type Runner struct {
	entries []Entry
	nextID  atomic.Int64
	// Getenv reads tokenEnv variables and the XDG directories at call time;
	// nil means os.Getenv.
	Getenv func(string) string
	// CacheDir overrides $XDG_CACHE_HOME (where the Python SDK is extracted).
	CacheDir string
}

var _ engine.Lifecycle = (*Runner)(nil)

// NewRunner validates entries (as Parse does for a file) and returns a Runner
// that calls them in the given order. An entry with Handler set runs in-process.
func NewRunner(entries ...Entry) (*Runner, error) {
	entries = slices.Clone(entries)
	seen := map[string]bool{}
	for i, e := range entries {
		label := fmt.Sprintf("hooks[%d] (%q)", i, e.Name)
		if !nameRE().MatchString(e.Name) {
			return nil, fmt.Errorf("%s.name: expected a string matching ^[a-z][a-z0-9-]*$", label)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("%s.name: duplicate", label)
		}
		seen[e.Name] = true
		kinds := 0
		for _, set := range []bool{len(e.Command) > 0, e.Path != "", e.Module != "", e.URL != "", e.Handler != nil} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return nil, fmt.Errorf("%s: expected exactly one of command, path, module, url and an in-process handler", label)
		}
		if e.URL != "" {
			if err := checkURL(e.URL, e.TokenEnv != ""); err != nil {
				return nil, fmt.Errorf("%s.url: %w", label, err)
			}
		}
		for k := range e.Headers {
			if strings.EqualFold(k, "Authorization") {
				return nil, fmt.Errorf("%s.headers.%s: refused: use tokenEnv", label, k)
			}
		}
		for j, p := range e.On {
			name, ok := hooks.Canonical(p)
			if !ok {
				return nil, fmt.Errorf("%s.on: unknown point %q", label, p)
			}
			if name != p {
				e.On = slices.Clone(e.On)
				e.On[j] = name
				entries[i] = e
			}
		}
	}
	return &Runner{entries: slices.Clone(entries)}, nil
}

// Entries returns the declaration, in order.
func (r *Runner) Entries() []Entry {
	if r == nil {
		return nil
	}
	return slices.Clone(r.entries)
}

// Active reports whether any enabled entry runs at point; the engine may skip
// building a context when none does.
func (r *Runner) Active(point string) bool {
	if r == nil {
		return false
	}
	for _, e := range r.entries {
		if e.handles(point) {
			return true
		}
	}
	return false
}

// Fire runs the chain at point. c is a pointer to the point's context type; its
// decision fields are updated in place. Executors run in declaration order, each
// seeing the decisions made before it. A failing executor is recorded and
// skipped, except that a required one at a point carrying proceed refuses and
// ends the chain. Every call is bounded by its own timeout and by ctx, so Fire
// returns in time even when an executor hangs.
func (r *Runner) Fire(ctx context.Context, point string, c any) []engine.LifecycleRecord {
	if r == nil || len(r.entries) == 0 {
		return nil
	}
	p, ok := hooks.Lookup(point)
	if !ok {
		return []engine.LifecycleRecord{failed(point, "", fmt.Sprintf("unknown point %q", point))}
	}
	if got := hooks.PointOf(c); got != point {
		return []engine.LifecycleRecord{failed(point, "", fmt.Sprintf("context %T is not the context of %s", c, point))}
	}
	hasProceed := p.HasDecision("proceed")
	var recs []engine.LifecycleRecord
	refusedBy := ""
	for _, e := range r.entries {
		if !e.handles(point) || e.loadErr != nil && !e.Required {
			continue
		}
		var res CallResult
		if e.loadErr != nil {
			res.Err = fmt.Errorf("not loaded: %v", e.loadErr)
		} else {
			res = r.call(ctx, e, point, c)
		}
		if res.Err != nil {
			why := res.Err.Error()
			recs = append(recs, failedRecord(point, e, why))
			if e.Required && hasProceed {
				reason := fmt.Sprintf("required hook %q failed: %s", e.Name, why)
				_ = apply(c, map[string]any{"proceed": false, "reason": reason})
				refusedBy = e.Name
				break
			}
			continue
		}
		if len(res.Changed) == 0 && len(res.Warnings) == 0 {
			continue
		}
		if err := apply(c, res.Changed); err != nil {
			// A bad answer is a failure like any other: a required hook that
			// answers nonsense refuses, as one that does not answer does.
			recs = append(recs, failedRecord(point, e, err.Error()))
			if e.Required && hasProceed {
				_ = apply(c, map[string]any{"proceed": false, "reason": fmt.Sprintf("required hook %q answered badly: %s", e.Name, err)})
				refusedBy = e.Name
				break
			}
			continue
		}
		payload := map[string]any{"point": point, "hook": e.Name, "fields": res.Changed}
		if res.Changed == nil {
			payload["fields"] = map[string]any{}
		}
		if len(res.Warnings) > 0 {
			payload["warnings"] = res.Warnings
		}
		recs = append(recs, engine.LifecycleRecord{Type: RecordDecided, Payload: payload})
		if v, ok := res.Changed["proceed"].(bool); ok {
			refusedBy = ""
			if !v {
				refusedBy = e.Name
			}
		}
	}
	if hasProceed && refusedBy != "" {
		d := hooks.Decisions(c)
		if d["proceed"] == false {
			reason, _ := d["reason"].(string)
			recs = append(recs, engine.LifecycleRecord{Type: RecordRefused, Payload: map[string]any{
				"point": point, "hook": refusedBy, "reason": reason,
			}})
		}
	}
	return recs
}

// LoadFailedRecord is what a hook command logs, once, when the declaration cannot
// be loaded; it then runs without lifecycle hooks.
func LoadFailedRecord(err error) engine.LifecycleRecord {
	return engine.LifecycleRecord{Type: RecordLoadFailed, Payload: map[string]any{"why": err.Error()}}
}

// failedRecord is a hook's failure; required=true lets the engine hold the
// session when the point has no proceed to refuse with.
func failedRecord(point string, e Entry, why string) engine.LifecycleRecord {
	r := failed(point, e.Name, why)
	if e.Required {
		r.Payload["required"] = true
	}
	return r
}

func failed(point, hook, why string) engine.LifecycleRecord {
	return engine.LifecycleRecord{Type: RecordFailed, Payload: map[string]any{"point": point, "hook": hook, "why": why}}
}

// CallResult is one executor's answer at one point.
type CallResult struct {
	Request []byte         // the JSON-RPC request sent
	Answer  []byte         // the raw answer, when one came
	Changed map[string]any // the decisions it would change (nil: none)
	// Warnings name what of the answer was ignored (an unknown key); they go
	// into the hooks.decided record and fail nothing.
	Warnings []string
	Err      error // the hook's failure
}

// Call sends c to the entry named name alone, without applying anything: what
// `hook-loop hooks test` shows.
func (r *Runner) Call(ctx context.Context, name, point string, c any) (CallResult, error) {
	point, _ = hooks.Canonical(point)
	if _, ok := hooks.Lookup(point); !ok {
		return CallResult{}, fmt.Errorf("unknown point %q (expected one of %s)", point, strings.Join(hooks.PointNames(), ", "))
	}
	if r != nil {
		for _, e := range r.entries {
			if e.Name == name {
				return r.call(ctx, e, point, c), nil
			}
		}
	}
	return CallResult{}, fmt.Errorf("no hook named %q in the declaration", name)
}

func (r *Runner) call(ctx context.Context, e Entry, point string, c any) CallResult {
	return r.redact(e, r.call1(ctx, e, point, c))
}

func (r *Runner) call1(ctx context.Context, e Entry, point string, c any) CallResult {
	id := r.nextID.Add(1)
	req, err := buildRequest(id, point, c, e.With)
	if err != nil {
		return CallResult{Err: err}
	}
	res := CallResult{Request: req}
	if err := ctx.Err(); err != nil {
		res.Err = fmt.Errorf("not run: the hook deadline had passed")
		return res
	}
	cctx, cancel := context.WithTimeout(ctx, e.timeout())
	defer cancel()
	answer, err := r.exec(cctx, e, req)
	res.Answer = answer
	if err != nil {
		switch {
		case ctx.Err() != nil:
			res.Err = fmt.Errorf("cut off at the hook deadline: %v", err)
		case cctx.Err() != nil || pastDeadline(cctx):
			// A kept-alive executor's server kills it at this same deadline and
			// may answer before this context's own timer has fired.
			res.Err = fmt.Errorf("timed out after %s: %v", e.timeout(), err)
		default:
			res.Err = err
		}
		return res
	}
	res.Changed, res.Warnings, res.Err = parseAnswer(answer, id, point, c)
	return res
}

// pastDeadline reports whether ctx's deadline has been reached by the clock.
func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// redact removes the entry's token from what a call returns: an executor that
// echoes it (in an error, in a bad answer) must not get it into the log.
func (r *Runner) redact(e Entry, res CallResult) CallResult {
	if e.TokenEnv == "" {
		return res
	}
	tok := r.getenv()(e.TokenEnv)
	if tok == "" {
		return res
	}
	if res.Err != nil && strings.Contains(res.Err.Error(), tok) {
		res.Err = errors.New(strings.ReplaceAll(res.Err.Error(), tok, "[redacted]"))
	}
	res.Answer = bytes.ReplaceAll(res.Answer, []byte(tok), []byte("[redacted]"))
	for k, v := range res.Changed {
		if s, ok := v.(string); ok && strings.Contains(s, tok) {
			res.Changed[k] = strings.ReplaceAll(s, tok, "[redacted]")
		}
	}
	return res
}

func (r *Runner) exec(ctx context.Context, e Entry, req []byte) ([]byte, error) {
	switch e.Kind() {
	case "go":
		return hooks.HandleRequest(ctx, e.Handler, req), nil
	case "url":
		return postJSON(ctx, e, req, r.getenv())
	}
	env, err := r.procEnv(e)
	if err != nil {
		return nil, err
	}
	return runCommand(ctx, e, env, req)
}

func buildRequest(id int64, point string, c any, with map[string]any) ([]byte, error) {
	params, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode the %s context: %w", point, err)
	}
	if with != nil {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, fmt.Errorf("encode the %s context: %w", point, err)
		}
		w, err := json.Marshal(with)
		if err != nil {
			return nil, fmt.Errorf("encode with: %w", err)
		}
		m["with"] = w
		if params, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	return json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": point, "params": json.RawMessage(params)})
}

// parseAnswer checks one JSON-RPC answer and returns the decisions that differ
// from c's, and a warning for each key it ignored. Nothing of a bad answer is
// applied.
func parseAnswer(answer []byte, id int64, point string, c any) (changed map[string]any, warnings []string, err error) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(answer, &resp); err != nil {
		return nil, nil, fmt.Errorf("answer is not a JSON-RPC object: %s", snippet(answer))
	}
	if v := string(resp["jsonrpc"]); v != `"2.0"` {
		return nil, nil, fmt.Errorf(`answer lacks "jsonrpc":"2.0"`)
	}
	var gotID json.Number
	if err := json.Unmarshal(resp["id"], &gotID); err != nil || gotID.String() != fmt.Sprint(id) {
		return nil, nil, fmt.Errorf("answer id %s does not match request id %d", orNone(resp["id"]), id)
	}
	if e, ok := resp["error"]; ok && !isNull(e) {
		var rpcErr hooks.Error
		if json.Unmarshal(e, &rpcErr) == nil && rpcErr.Message != "" {
			return nil, nil, fmt.Errorf("executor answered error %d: %s", rpcErr.Code, rpcErr.Message)
		}
		return nil, nil, fmt.Errorf("executor answered error %s", snippet(e))
	}
	result, ok := resp["result"]
	if !ok {
		return nil, nil, fmt.Errorf("answer has neither result nor error")
	}
	if isNull(result) {
		return nil, nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(result, &obj); err != nil {
		return nil, nil, fmt.Errorf("result is neither null nor an object of decisions: %s", snippet(result))
	}
	p, _ := hooks.Lookup(point)
	decisions := map[string]string{}
	for _, f := range p.Decisions() {
		decisions[f.Name] = f.Type
	}
	facts := map[string]bool{}
	for _, f := range p.Facts() {
		facts[f.Name] = true
	}
	current := hooks.Decisions(c)
	changed = map[string]any{}
	for _, k := range sortedKeys(obj) {
		typ, isDecision := decisions[k]
		if !isDecision {
			// A changed fact changes nothing; an unknown key is ignored, as the
			// design's wire says, but named so a typo ("procede") is found.
			if !facts[k] {
				warnings = append(warnings, fmt.Sprintf("ignored result key %q: not a decision of %s (decisions: %s)", k, point, strings.Join(sortedKeys(decisions), ", ")))
			}
			continue
		}
		var v any
		switch typ {
		case "bool":
			var b bool
			if isNull(obj[k]) || json.Unmarshal(obj[k], &b) != nil {
				return nil, nil, fmt.Errorf("decision %q: expected true or false, got %s", k, snippet(obj[k]))
			}
			v = b
		case "string":
			var s string
			if isNull(obj[k]) || json.Unmarshal(obj[k], &s) != nil {
				return nil, nil, fmt.Errorf("decision %q: expected a string, got %s", k, snippet(obj[k]))
			}
			v = s
		default:
			return nil, nil, fmt.Errorf("decision %q has unsupported type %s", k, typ)
		}
		if !reflect.DeepEqual(current[k], v) {
			changed[k] = v
		}
	}
	if len(changed) == 0 {
		return nil, warnings, nil
	}
	return changed, warnings, nil
}

// apply sets c's decision fields from m (names are JSON names, already checked).
func apply(c any, m map[string]any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, c)
}

func isNull(b json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }

func orNone(b json.RawMessage) string {
	if len(b) == 0 {
		return "(none)"
	}
	return string(b)
}

// snippet shows at most 200 bytes of an answer on one line.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

var errEmpty = errors.New("executor wrote nothing on stdout")

// ForHook loads the declaration for one hook invocation; it has the shape of
// hook.Deps.Lifecycle. path is --hooks-config ("" for the default). With
// nothing declared it returns a nil Lifecycle, so the engine behaves exactly as
// without hooks; when the declaration cannot be loaded it returns a nil Lifecycle
// (run hookless) and the hooks.load_failed record to log.
func ForHook(path string) (engine.Lifecycle, *engine.LifecycleRecord) {
	r, _, err := LoadConfig(path, os.Getenv)
	if err != nil {
		rec := LoadFailedRecord(err)
		return nil, &rec
	}
	if len(r.entries) == 0 {
		return nil, nil
	}
	// No python3 on the hot path: a module not found by a stat fails at its
	// call instead (see checkCheap).
	return r, r.checkCheap()
}
