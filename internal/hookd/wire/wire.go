// Package wire is the hook server's protocol (internal/hookd): one request
// and one answer per connection on a unix stream socket, length-prefixed, so
// that the lean hook client (cmd/hook-loop-hook) speaks it with no encoder
// whose package init every hook would pay for.
//
// A request is "HLD2", a uint32 length and the fields (harness name, the
// hook's arguments, its working directory, the digest of its environment,
// its stdin). The server answers Started once it takes the event — an idle
// one as soon as it has the connection, before it checks the peer, so that
// the byte reaches a client still at work instead of waking it mid-hook; a
// busy one when its worker comes to the request. Before that byte the client
// may still run the hook itself (and closes its reading first, so that a
// Started sent after fails: wire.Conn.StopReading); after it, the event may
// be in the log, and running it again could count it twice — unless the
// server declines it, or refuses the peer (confined otherwise: that client
// does not trust it either) and runs nothing. Then "HLA1", a status, the
// exit code, stdout and stderr.
//
// A request carries nothing the agent a hook gates does not already have:
// its arguments are in every process listing, its stdin is the agent's own
// event, and its environment — which may hold secrets the harness keeps from
// the agent's commands — travels only as a SHA-256 digest. So the client may
// send it before it has checked who listens (and check while the server
// works); it reads an answer only from a server it checked.
package wire

import (
	"crypto/sha256"
	"errors"
	"io"
	"slices"
)

// Started is the byte the server writes when it takes the event.
const Started = 'S'

// Status of an answer.
const (
	// Answered: Exit, Stdout and Stderr are the hook's answer.
	Answered byte = 0
	// Declined: the server did not run the hook (its environment differs,
	// its arguments are not a hook's); the client runs it itself.
	Declined byte = 1
)

// LostEnv tells the one-shot hook the client runs after the server took the
// event and gave no answer it can go by — it stopped answering, or turned
// out not to be trusted (hookrun.Options.Lost): its value says how.
const LostEnv = "HOOK_LOOP_HOOKD_LOST"

// ServerEnv is env as the server compares it with its own: sorted, without
// LostEnv (the client's marker for the one-shot hook it runs after a lost
// request) and without "_", which a shell sets to each command's path.
func ServerEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if Compared(kv) {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}

// Compared reports whether the variable kv is one the server compares.
func Compared(kv string) bool { return !hasPrefix(kv, "_=") && !hasPrefix(kv, LostEnv+"=") }

// Digest is the SHA-256 of an environment as ServerEnv orders it, each
// variable followed by a NUL: what a request carries in its place, and what
// the server compares with its own.
type Digest [sha256.Size]byte

// EnvDigest is the Digest of env.
func EnvDigest(env []string) Digest {
	h := sha256.New()
	for _, kv := range ServerEnv(env) {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return Digest(h.Sum(nil))
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// MaxRequest bounds a request: the hook's 8 MiB stdin cap plus arguments and
// environment.
const MaxRequest = 9 << 20

// Request is one hook invocation.
type Request struct {
	Harness string   // "codex" for codex-hook
	Args    []string // after <harness>-hook
	Cwd     string
	Env     Digest // EnvDigest of the hook's environment
	Stdin   []byte
}

// Answer is what the hook would have printed, and its exit status.
type Answer struct {
	Status         byte
	Exit           int32
	Stdout, Stderr []byte
	// Why is a Declined answer's reason, for the client's stderr.
	Why string
}

var (
	reqMagic = [4]byte{'H', 'L', 'D', '2'}
	ansMagic = [4]byte{'H', 'L', 'A', '1'}
)

// ErrFormat is a message that is not this protocol's.
var ErrFormat = errors.New("hookd: not a hook-loop hook server message")

// AppendRequest encodes r.
func AppendRequest(b []byte, r Request) []byte {
	body := appendStr(nil, r.Harness)
	body = appendList(body, r.Args)
	body = appendStr(body, r.Cwd)
	body = appendBytes(body, r.Env[:])
	body = appendBytes(body, r.Stdin)
	b = append(b, reqMagic[:]...)
	b = appendU32(b, uint32(len(body)))
	return append(b, body...)
}

// ReadRequest reads one request from rd.
func ReadRequest(rd io.Reader) (Request, error) {
	body, err := readFrame(rd, reqMagic)
	if err != nil {
		return Request{}, err
	}
	d := decoder{b: body}
	r := Request{Harness: d.str(), Args: d.list(), Cwd: d.str()}
	env := d.bytes()
	r.Stdin = d.bytes()
	if d.err != nil || len(d.b) != 0 || len(env) != len(r.Env) {
		return Request{}, ErrFormat
	}
	r.Env = Digest(env)
	return r, nil
}

// AppendAnswer encodes a.
func AppendAnswer(b []byte, a Answer) []byte {
	body := append([]byte{a.Status}, 0, 0, 0, 0)
	putU32(body[1:], uint32(a.Exit))
	body = appendBytes(body, a.Stdout)
	body = appendBytes(body, a.Stderr)
	body = appendStr(body, a.Why)
	b = append(b, ansMagic[:]...)
	b = appendU32(b, uint32(len(body)))
	return append(b, body...)
}

// ReadAnswer reads one answer from rd.
func ReadAnswer(rd io.Reader) (Answer, error) {
	body, err := readFrame(rd, ansMagic)
	if err != nil {
		return Answer{}, err
	}
	if len(body) < 5 {
		return Answer{}, ErrFormat
	}
	a := Answer{Status: body[0], Exit: int32(getU32(body[1:]))}
	d := decoder{b: body[5:]}
	a.Stdout, a.Stderr, a.Why = d.bytes(), d.bytes(), d.str()
	if d.err != nil || len(d.b) != 0 || a.Status > Declined {
		return Answer{}, ErrFormat
	}
	return a, nil
}

func readFrame(rd io.Reader, magic [4]byte) ([]byte, error) {
	var head [8]byte
	if _, err := io.ReadFull(rd, head[:]); err != nil {
		return nil, err
	}
	if [4]byte(head[:4]) != magic {
		return nil, ErrFormat
	}
	n := getU32(head[4:])
	if n > MaxRequest {
		return nil, ErrFormat
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(rd, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

func appendU32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func appendBytes(b, v []byte) []byte { return append(appendU32(b, uint32(len(v))), v...) }

func appendStr(b []byte, s string) []byte { return append(appendU32(b, uint32(len(s))), s...) }

func appendList(b []byte, l []string) []byte {
	b = appendU32(b, uint32(len(l)))
	for _, s := range l {
		b = appendStr(b, s)
	}
	return b
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u32() uint32 {
	if d.err != nil || len(d.b) < 4 {
		d.err = ErrFormat
		return 0
	}
	v := getU32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.u32()
	if d.err != nil || uint64(n) > uint64(len(d.b)) {
		d.err = ErrFormat
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) list() []string {
	n := d.u32()
	if d.err != nil || uint64(n) > uint64(len(d.b))/4 {
		d.err = ErrFormat
		return nil
	}
	l := make([]string, 0, n)
	for range n {
		l = append(l, d.str())
	}
	return l
}
