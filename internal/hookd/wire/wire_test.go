package wire

import (
	"bytes"
	"io"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	r := Request{Harness: "codex", Args: []string{"--event", "Stop", ""}, Cwd: "/p", Env: EnvDigest([]string{"A=1", "B="}), Stdin: []byte(`{"x":1}`)}
	got, err := ReadRequest(bytes.NewReader(AppendRequest(nil, r)))
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("request: %+v %v", got, err)
	}
	a := Answer{Status: Answered, Exit: 2, Stdout: []byte("out"), Stderr: []byte("err")}
	ga, err := ReadAnswer(bytes.NewReader(AppendAnswer(nil, a)))
	if err != nil || !reflect.DeepEqual(ga, Answer{Status: Answered, Exit: 2, Stdout: []byte("out"), Stderr: []byte("err"), Why: ""}) {
		t.Fatalf("answer: %+v %v", ga, err)
	}
}

// Truncated, oversized and foreign messages are refused, never read past.
func TestBadFrames(t *testing.T) {
	good := AppendRequest(nil, Request{Harness: "codex", Args: []string{"a"}, Env: EnvDigest([]string{"A=1"}), Stdin: []byte("x")})
	for i := range good {
		if _, err := ReadRequest(bytes.NewReader(good[:i])); err == nil {
			t.Errorf("a request cut at %d bytes was read", i)
		}
	}
	huge := append(reqMagic[:], 0xff, 0xff, 0xff, 0xff)
	if _, err := ReadRequest(bytes.NewReader(huge)); err != ErrFormat {
		t.Errorf("a 4 GiB length: %v", err)
	}
	if _, err := ReadRequest(bytes.NewReader([]byte("GET / HTTP/1.1\r\n\r\n"))); err != ErrFormat {
		t.Errorf("HTTP: %v", err)
	}
	// A count of list items the body cannot hold.
	body := appendStr(nil, "codex")
	body = appendU32(body, 1<<30)
	msg := append(append(reqMagic[:], 0, 0, 0, 0), body...)
	putU32(msg[4:], uint32(len(body)))
	if _, err := ReadRequest(bytes.NewReader(msg)); err != ErrFormat {
		t.Errorf("an impossible list count: %v", err)
	}
	// A digest of another length than SHA-256's.
	body = appendStr(nil, "codex")
	body = appendList(body, nil)
	body = appendStr(body, "/p")
	body = appendBytes(body, []byte("short"))
	body = appendBytes(body, nil)
	msg = append(append(reqMagic[:], 0, 0, 0, 0), body...)
	putU32(msg[4:], uint32(len(body)))
	if _, err := ReadRequest(bytes.NewReader(msg)); err != ErrFormat {
		t.Errorf("a 5-byte digest: %v", err)
	}
	// A request of the protocol before digests (HLD1 carried the variables).
	old := append([]byte("HLD1"), good[4:]...)
	if _, err := ReadRequest(bytes.NewReader(old)); err != ErrFormat {
		t.Errorf("an HLD1 request: %v", err)
	}
	if _, err := ReadAnswer(io.MultiReader(bytes.NewReader([]byte("HLA1")), bytes.NewReader([]byte{1, 0, 0, 0, 9}))); err == nil {
		t.Error("an answer with a bad status was read")
	}
}

func FuzzReadRequest(f *testing.F) {
	f.Add(AppendRequest(nil, Request{Harness: "codex", Args: []string{"--event", "Stop"}, Env: EnvDigest([]string{"A=1"}), Stdin: []byte("{}")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadRequest(bytes.NewReader(b))
		if err != nil {
			return
		}
		again, err := ReadRequest(bytes.NewReader(AppendRequest(nil, r)))
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("re-encoded request differs: %+v %v", again, err)
		}
	})
}

func TestServerEnv(t *testing.T) {
	got := ServerEnv([]string{"B=2", "_=/usr/bin/x", LostEnv + "=why", "A=1"})
	if !reflect.DeepEqual(got, []string{"A=1", "B=2"}) {
		t.Errorf("ServerEnv: %q", got)
	}
}

// The digest is the server's view of an environment: the order of the
// variables, the shell's "_" and the lost-request marker do not count; any
// variable's name or value does.
func TestEnvDigest(t *testing.T) {
	base := EnvDigest([]string{"A=1", "B=2"})
	if EnvDigest([]string{"B=2", "_=/bin/sh", "A=1", LostEnv + "=x"}) != base {
		t.Error("order, _ or the lost marker changed the digest")
	}
	for _, env := range [][]string{{"A=1", "B=3"}, {"A=1"}, {"A=1", "B=2", "C="}, {"A=1B=2"}, {"A=1", "B=2", "B=2"}} {
		if EnvDigest(env) == base {
			t.Errorf("%q has the digest of A=1 B=2", env)
		}
	}
}
