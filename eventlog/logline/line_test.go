package logline

import "testing"

// BenchmarkParseLine is one typical line, fully and for the fold.
func BenchmarkParseLine(b *testing.B) {
	line := []byte(`{"schema_version":1,"event_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","session_id":"019a2b6c-7f3e-7c21-9d55-2c1f0e8a4b10","run_id":"run-1","timestamp":"2026-03-01T10:00:00.123456+00:00","state":"building","event_type":"state_transitioned","actor":"codex","payload":{"from":"planning","event":"plan_ready","to":"building"},"prev_hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`)
	for _, full := range []bool{true, false} {
		b.Run(map[bool]string{true: "full", false: "fold"}[full], func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(line, !full, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A sealed line checks under its key only, unsealed and with another MAC
// it does not, and Rechain moves a line into another chain and key keeping
// its core.
func TestSealCheckRechain(t *testing.T) {
	k1, err := NewKey([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := NewKey([]byte("fedcba9876543210fedcba9876543210"))
	if _, err := NewKey([]byte("short")); err == nil {
		t.Fatal("a short key accepted")
	}
	body := `{"session_id":"s","event_type":"x","prev_hash":"` + Hash([]byte("before")) + `"}`
	sealed := k1.Seal([]byte(body))
	if !k1.Check(sealed) || k2.Check(sealed) || !HasMAC(sealed) || len(MACOf(sealed)) != 64 {
		t.Fatalf("sealed %s: check %v/%v, MAC %q", sealed, k1.Check(sealed), k2.Check(sealed), MACOf(sealed))
	}
	if string(Unsealed(sealed)) != body || HasMAC([]byte(body)) || MACOf([]byte(body)) != "" || k1.Check([]byte(body)) {
		t.Fatalf("unsealed: %s", Unsealed(sealed))
	}
	forged := append([]byte(nil), sealed...)
	forged[2] = 'S'
	if k1.Check(forged) {
		t.Fatal("an edited line checks")
	}
	moved, ok := Rechain(k2, sealed, "")
	if !ok || !k2.Check(moved) || string(Core(moved)) != string(Core(sealed)) || string(Core(sealed)) != `{"session_id":"s","event_type":"x"` {
		t.Fatalf("Rechain: %s %v; cores %s / %s", moved, ok, Core(moved), Core(sealed))
	}
	if e, err := Parse(moved); err != nil || e.PrevHash != "" || e.MAC != MACOf(moved) {
		t.Fatalf("Parse(%s): %+v %v", moved, e, err)
	}
}
