package eventlog

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFileInfo: what openFileInfo returns of the open file is what a
// second stat would say (the index compares the size and records the
// identity).
func TestOpenFileInfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte("0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, got, err := openFileInfo(path, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if got.size != fi.Size() || got.fileID() != fileID(fi) {
		t.Fatalf("openFileInfo: size %d, id %q; Stat: size %d, id %q", got.size, got.fileID(), fi.Size(), fileID(fi))
	}
	if _, _, err := openFileInfo(filepath.Dir(path), os.O_RDONLY, 0); err == nil {
		t.Fatal("a directory opened")
	}
}

// TestCheckMACReusesOneHMAC: checkMAC with one HMAC reset per record agrees
// with chainMAC, and takes only its lower-case hex form, as before.
func TestCheckMACReusesOneHMAC(t *testing.T) {
	k := &logKey{raw: []byte("0123456789abcdef0123456789abcdef")}
	m := k.newMAC()
	prev := ""
	for i, body := range []string{"snapshot\n", "delta one\n", "delta two\n"} {
		mac := hex.EncodeToString(k.chainMAC(prev, []byte(body)))
		if !checkMAC(m, prev, []byte(body), mac) {
			t.Fatalf("record %d: right MAC refused", i)
		}
		if checkMAC(m, prev, []byte(body+"x"), mac) || checkMAC(m, "other", []byte(body), mac) {
			t.Fatalf("record %d: MAC of other content accepted", i)
		}
		if checkMAC(m, prev, []byte(body), strings.ToUpper(mac)) || checkMAC(m, prev, []byte(body), mac[:len(mac)-2]) {
			t.Fatalf("record %d: MAC not in chainMAC's form accepted", i)
		}
		prev = mac
	}
}
