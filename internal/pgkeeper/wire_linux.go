package pgkeeper

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/tidwall/gjson"
)

// A hook's side of the protocol is written and read by hand: a hook is a fresh
// process, where encoding/json's first use of a type builds its codec by
// reflection (~0.1 ms for request and reply, timed in a fresh process). The
// keeper, long-lived, uses encoding/json; TestWireMatchesEncodingJSON keeps
// the two in step.

// appendRequest is req as JSON (encoding/json's meaning; nil maps and byte
// slices as null, map keys in any order).
func appendRequest(b []byte, req request) []byte {
	b = append(b, `{"op":`...)
	b = eventlog.AppendJSONString(b, req.Op, false)
	b = append(b, `,"key":`...)
	b = eventlog.AppendJSONString(b, req.Key, false)
	if m := req.Meta; m != nil {
		b = append(b, `,"meta":{"pid":`...)
		b = strconv.AppendUint(b, uint64(m.PID), 10)
		b = append(b, `,"secret_key":`...)
		if m.SecretKey == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '"')
			b = base64.StdEncoding.AppendEncode(b, m.SecretKey)
			b = append(b, '"')
		}
		b = append(b, `,"params":`...)
		if m.Params == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '{')
			first := true
			for k, v := range m.Params {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = eventlog.AppendJSONString(b, k, false)
				b = append(b, ':')
				b = eventlog.AppendJSONString(b, v, false)
			}
			b = append(b, '}')
		}
		if len(m.Prepared) > 0 {
			b = append(b, `,"prepared":[`...)
			for i, p := range m.Prepared {
				if i > 0 {
					b = append(b, ',')
				}
				b = eventlog.AppendJSONString(b, p, false)
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

// parseReply reads a reply as encoding/json would into rep.
func parseReply(data []byte, rep *reply) error {
	if !gjson.ValidBytes(data) {
		return errors.New("pgkeeper: reply is not JSON")
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return errors.New("pgkeeper: reply is not an object")
	}
	*rep = reply{OK: root.Get("ok").Type == gjson.True}
	mv := root.Get("meta")
	if !mv.IsObject() {
		return nil
	}
	m := &meta{}
	pid := mv.Get("pid")
	if pid.Exists() {
		n, err := strconv.ParseUint(pid.Raw, 10, 32)
		if err != nil {
			return errors.New("pgkeeper: reply: meta.pid is not a backend pid")
		}
		m.PID = uint32(n)
	}
	if sk := mv.Get("secret_key"); sk.Type == gjson.String {
		b, err := base64.StdEncoding.DecodeString(sk.Str)
		if err != nil {
			return errors.New("pgkeeper: reply: meta.secret_key is not base64")
		}
		m.SecretKey = b
	}
	if ps := mv.Get("params"); ps.IsObject() {
		m.Params = map[string]string{}
		var err error
		ps.ForEach(func(k, v gjson.Result) bool {
			if v.Type != gjson.String {
				err = errors.New("pgkeeper: reply: meta.params holds a non-string")
				return false
			}
			m.Params[k.Str] = v.Str
			return true
		})
		if err != nil {
			return err
		}
	}
	if pr := mv.Get("prepared"); pr.IsArray() {
		for _, p := range pr.Array() {
			m.Prepared = append(m.Prepared, p.Str)
		}
	}
	rep.Meta = m
	return nil
}

// jsonInto decodes a message into v with encoding/json (the keeper's side).
func jsonInto(v any) func([]byte) error {
	return func(b []byte) error { return json.Unmarshal(b, v) }
}
