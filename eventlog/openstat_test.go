package eventlog

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// TestOpenFile: the FileInfo openFile returns is of the file at path (the
// index compares its size and records its identity), and only a regular file
// is opened.
func TestOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte("0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, got, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi := mustStat(t, path)
	if got.Size() != fi.Size() || !os.SameFile(got, fi) || fileID(got) != fileID(fi) {
		t.Fatalf("openFile: size %d, id %q; Stat: size %d, id %q", got.Size(), fileID(got), fi.Size(), fileID(fi))
	}
	if _, _, err := openFile(filepath.Dir(path), os.O_RDONLY, 0); err == nil {
		t.Fatal("a directory opened")
	}
}

// TestCheckMACReusesOneHMAC: checkMAC with one HMAC reset per record agrees
// with chainMAC, and takes only its lower-case hex form, as before.
func TestCheckMACReusesOneHMAC(t *testing.T) {
	mac, err := logline.NewKey([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	k := &logKey{mac: mac}
	m := k.mac.NewMAC()
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
