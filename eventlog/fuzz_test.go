package eventlog

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// FuzzScanLine feeds arbitrary bytes to the log-line parser. It must never panic;
// the light parse used to fold big logs must accept exactly the lines the full
// parse accepts and give the same summary; an accepted event must survive being
// written and read again; and a log made of the line must scan without error.
func FuzzScanLine(f *testing.F) {
	seeds := []string{
		`{"schema_version": 1, "event_id": "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "session_id": "019a2b6c-7f3e-7c21-9d55-2c1f0e8a4b10", "run_id": "run-1", "timestamp": "2026-03-01T10:00:00.123456+00:00", "state": "planning", "event_type": "session_initialized", "actor": "hook-loop", "payload": {"initial_state": "planning"}}`,
		`{"actor":"codex","event_id":"e2","event_type":"state_transitioned","payload":{"event":"plan_ready","from":"planning","to":"building"},"run_id":"r","schema_version":1,"session_id":"s","state":"planning","timestamp":"2026-03-01T10:00:01+00:00","prev_hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`,
		`{"schema_version":1,"session_id":"s","event_type":"evidence_registered","state":"verifying","payload":{"command":"go test ./...","exit_code":0}}`,
		`{"schema_version":1,"session_id":"s","event_type":"loop_outcome","state":"done","payload":{"outcome":"capped","forced_by_harness":true}}`,
		`{"schema_version":1,"session_id":"s","event_type":"stop_contract_failed","state":"building","payload":{"reason":"not yet"}}`,
		`{"session_id":"s","event_type":"x","payload":null}`,
		`{"session_id":"s","event_type":"x","payload":{"to":1e400,"reason":{"a":[1,2.5e-3]},"outcome":"\u00e9\ud800x","initial_state":-0}}`,
		`{"session_id":"s\u00e9\ud800","event_type":"x","state":"\xff"}`,
		`{"session_id":"s","event_type":"x","event_type":"y"}`,
		`{"schema_version":"1","session_id":"s","event_type":"x"}`,
		`{"schema_version":1,"event_id":"x","sess`,
		`[1,2,3]`, `null`, ``, `   `, `{}`, `not json`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			line = line[:bytes.IndexByte(line, '\n')]
		}
		full, ferr := logline.Decode(line, false, false)
		light, lerr := logline.Decode(line, true, false)
		if (ferr == nil) != (lerr == nil) {
			t.Fatalf("full parse error %v, light parse error %v", ferr, lerr)
		}
		if ferr != nil {
			if strings.ContainsAny(ferr.Error(), "\n") {
				t.Fatalf("multi-line error %q", ferr)
			}
			return
		}
		for _, k := range logline.LightKeys() {
			fv, fok := full.Payload[k]
			lv, lok := light.Payload[k]
			if fok != lok || !reflect.DeepEqual(fv, lv) {
				t.Fatalf("payload.%s: full %#v, light %#v", k, fv, lv)
			}
		}
		h := logline.Hash(line)
		var sf, sl Summary
		sf.Apply(&full, h)
		sl.Apply(&light, h)
		if sf != sl {
			t.Fatalf("summaries differ:\nfull  %+v\nlight %+v", sf, sl)
		}
		// Written and read again, the event is the same.
		b, err := json.Marshal(full)
		if err != nil {
			return // e.g. a number float64 cannot hold, kept as json.Number
		}
		again, err := logline.Parse(b)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", b, err)
		}
		if full.Payload == nil {
			full.Payload = again.Payload // null and absent both read back as nil
		}
		if !reflect.DeepEqual(full, again) {
			t.Fatalf("round trip:\n%+v\n%+v", full, again)
		}
		// As a whole log (with and without its newline) it scans cleanly.
		l := openTest(t.TempDir() + "/events.jsonl")
		for _, content := range [][]byte{append(line, '\n'), line} {
			if err := writeFile(l.Path(), content); err != nil {
				t.Fatal(err)
			}
			n := 0
			if err := l.Scan(nil, func(int, Event) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
			if want := len(content) - len(line); n != want {
				t.Fatalf("scan found %d events, want %d", n, want)
			}
		}
	})
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
