package logline

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
)

// macField is how a keyed line ends: the line is body + macField + 64 hex digits
// + `"}`, and the MAC is HMAC-SHA256(key, body). Fixing the field's place makes
// "the line without its MAC" a prefix, so checking a line costs one HMAC and no
// re-encoding.
const macField = `,"mac":"`

// MACSuffixLen is the length of the MAC field a sealed line ends in.
const MACSuffixLen = len(macField) + 2*sha256.Size + 2

// Key is the MAC key of one log. It never changes once created, and is the
// same for every store of the log, so a line means the same wherever it is
// kept.
type Key struct{ raw []byte }

// NewKey is the key of raw, 32 bytes.
func NewKey(raw []byte) (*Key, error) {
	if len(raw) != 32 {
		return nil, errors.New("a log key is 32 bytes")
	}
	return &Key{raw: raw}, nil
}

// NewMAC is a reusable HMAC under k, for checking many lines (CheckWith) or
// MACs of other records.
func (k *Key) NewMAC() hash.Hash { return hmac.New(sha256.New, k.raw) }

// Sum is the MAC of data under k, in hex, for a store's own records.
func (k *Key) Sum(data []byte) string {
	m := k.NewMAC()
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil))
}

// Seal returns the encoded event line (without its newline, ending in '}',
// without a MAC) with its MAC field appended; line is reused.
func (k *Key) Seal(line []byte) []byte {
	body := line[:len(line)-1]
	m := k.NewMAC()
	m.Write(body)
	out := append(body, macField...)
	out = hex.AppendEncode(out, m.Sum(nil))
	return append(out, '"', '}')
}

// Check reports whether line carries its right MAC under k.
func (k *Key) Check(line []byte) bool { return CheckWith(k.NewMAC(), line) }

// CheckWith is Check with m, a NewMAC of the key reused line after line.
func CheckWith(m hash.Hash, line []byte) bool {
	if !HasMAC(line) {
		return false
	}
	var got, want [sha256.Size]byte
	if _, err := hex.Decode(got[:], line[len(line)-MACSuffixLen+len(macField):len(line)-2]); err != nil {
		return false
	}
	m.Reset()
	m.Write(line[:len(line)-MACSuffixLen])
	return hmac.Equal(got[:], m.Sum(want[:0]))
}

// HasMAC reports whether line ends in a MAC field (right or not).
func HasMAC(line []byte) bool {
	return len(line) >= MACSuffixLen && bytes.HasPrefix(line[len(line)-MACSuffixLen:], []byte(macField)) && bytes.HasSuffix(line, []byte(`"}`))
}

// MACOf is the MAC (hex) a sealed line ends in; "" when it has none.
func MACOf(line []byte) string {
	if !HasMAC(line) {
		return ""
	}
	return string(line[len(line)-MACSuffixLen+len(macField) : len(line)-2])
}

// Unsealed is line without its MAC field (line itself when it has none).
func Unsealed(line []byte) []byte {
	if !HasMAC(line) {
		return line
	}
	out := append([]byte(nil), line[:len(line)-MACSuffixLen]...)
	return append(out, '}')
}

// prevField is how an encoded event's body ends when it has a prev_hash: the
// field a store writes last before the MAC.
const prevField = `,"prev_hash":"`

// Rechain returns line (a keyed or unkeyed event line) with its MAC removed and
// its prev_hash replaced by prev ("" for a session's first event), sealed under
// k: what copying a line into a log with another key needs, since the MAC
// covers prev_hash and so each line's hash. ok is false when line does not end
// the way a store writes it (so its prev_hash cannot be replaced in place).
func Rechain(k *Key, line []byte, prev string) (out []byte, ok bool) {
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
