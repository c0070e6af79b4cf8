package eventlog

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
)

// NewID is a random (version 4) UUID in its canonical text form: an event's
// or a run's id. It is written here rather than taken from a UUID library
// because the ones at hand link package net (for time-based UUIDs), whose
// init every hook process would pay for. An id names an event and is no
// secret, so it comes from the runtime's ChaCha8 generator (seeded from the
// system at start) rather than crypto/rand, whose first read in a process
// costs a hook 40–100 µs (docs/bench.md).
func NewID() string {
	var u [16]byte
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}
