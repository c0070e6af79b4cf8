package session

import (
	"fmt"
	"math"
	"strconv"

	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/tidwall/gjson"
)

// View's JSON codec is written out by hand because a hook decodes two views
// from the index (the project's and its session's) and writes them back on
// every event, in a fresh process: encoding/json's first use of a struct type,
// which builds the type's field cache by reflection, cost each hook more than
// the decoding itself. The output is byte for byte what encoding/json writes
// for the struct tags; TestViewJSONMatchesEncodingJSON keeps the two equal, so a
// field added to View without a line here fails it.

type viewField struct {
	key       string
	omitEmpty bool
	str       func(*View) *string
	num       func(*View) *int
	flag      func(*View) *bool
}

var viewFields = [...]viewField{
	{key: "state", str: func(v *View) *string { return &v.State }},
	{key: "events", num: func(v *View) *int { return &v.Events }},
	{key: "evidence", num: func(v *View) *int { return &v.Evidence }},
	{key: "stop_blocks", num: func(v *View) *int { return &v.StopBlocks }},
	{key: "transitions", num: func(v *View) *int { return &v.Transitions }},
	{key: "outcome", str: func(v *View) *string { return &v.Outcome }},
	{key: "outcome_forced", flag: func(v *View) *bool { return &v.OutcomeForced }},
	{key: "started", flag: func(v *View) *bool { return &v.Started }},
	{key: "disarmed", str: func(v *View) *string { return &v.Disarmed }},
	{key: "session_refused", flag: func(v *View) *bool { return &v.SessionRefused }},
	{key: "pinned", omitEmpty: true, str: func(v *View) *string { return &v.Pinned }},
	{key: "loop_file", omitEmpty: true, str: func(v *View) *string { return &v.LoopFile }},
	{key: "tampered", omitEmpty: true, str: func(v *View) *string { return &v.Tampered }},
	{key: "held", omitEmpty: true, str: func(v *View) *string { return &v.Held }},
	{key: "hooks_load_failed", omitEmpty: true, flag: func(v *View) *bool { return &v.HooksLoadFailed }},
	{key: "paused", flag: func(v *View) *bool { return &v.Paused }},
	{key: "pause_reason", str: func(v *View) *string { return &v.PauseReason }},
	{key: "cancelled", str: func(v *View) *string { return &v.Cancelled }},
	{key: "would_blocks", num: func(v *View) *int { return &v.WouldBlocks }},
	{key: "last_would_block", str: func(v *View) *string { return &v.LastWouldBlock }},
	{key: "last_type", str: func(v *View) *string { return &v.LastType }},
	{key: "first_timestamp", str: func(v *View) *string { return &v.FirstTimestamp }},
	{key: "last_timestamp", str: func(v *View) *string { return &v.LastTimestamp }},
	{key: "last_refusal", omitEmpty: true, str: func(v *View) *string { return &v.LastRefusal }},
}

// MarshalJSON writes v as encoding/json would from its struct tags.
func (v *View) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 384)
	b = append(b, '{')
	first := true
	for i := range viewFields {
		f := &viewFields[i]
		var val []byte
		switch {
		case f.str != nil:
			s := *f.str(v)
			if f.omitEmpty && s == "" {
				continue
			}
			val = logline.AppendJSONString(nil, s, true)
		case f.num != nil:
			n := *f.num(v)
			if f.omitEmpty && n == 0 {
				continue
			}
			val = strconv.AppendInt(nil, int64(n), 10)
		default:
			t := *f.flag(v)
			if f.omitEmpty && !t {
				continue
			}
			val = strconv.AppendBool(nil, t)
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, f.key...)
		b = append(b, '"', ':')
		b = append(b, val...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON (or encoding/json) wrote. A value of the
// wrong type is an error, as it is for encoding/json; null leaves a field as it
// is and unknown keys are ignored, as there.
func (v *View) UnmarshalJSON(data []byte) error {
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("session view: not valid JSON")
	}
	root := gjson.ParseBytes(data)
	if root.Type == gjson.Null {
		return nil
	}
	if !root.IsObject() {
		return fmt.Errorf("session view: expected an object")
	}
	var err error
	root.ForEach(func(k, val gjson.Result) bool {
		f := lookupViewField(k.Str)
		if f == nil || val.Type == gjson.Null {
			return true
		}
		switch {
		case f.str != nil:
			if val.Type != gjson.String {
				err = fmt.Errorf("session view: %s: expected a string", f.key)
				return false
			}
			*f.str(v) = logline.DecodeString(val)
		case f.num != nil:
			if val.Type != gjson.Number || val.Num != math.Trunc(val.Num) || math.Abs(val.Num) > 1<<53 {
				err = fmt.Errorf("session view: %s: expected an integer", f.key)
				return false
			}
			*f.num(v) = int(val.Int())
		default:
			if val.Type != gjson.True && val.Type != gjson.False {
				err = fmt.Errorf("session view: %s: expected true or false", f.key)
				return false
			}
			*f.flag(v) = val.Type == gjson.True
		}
		return true
	})
	return err
}

func lookupViewField(key string) *viewField {
	for i := range viewFields {
		if viewFields[i].key == key {
			return &viewFields[i]
		}
	}
	return nil
}
