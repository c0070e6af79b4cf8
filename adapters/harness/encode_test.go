package harness

import (
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

func TestBlockReasonFallsBackOnlyForAnEmptyBlock(t *testing.T) {
	for _, tt := range []struct {
		d    loop.Decision
		want string
	}{
		{loop.Decision{Action: loop.Block}, "fallback"},
		{loop.Decision{Action: loop.Block, Reason: "tests fail"}, "tests fail"},
		{loop.Decision{Action: loop.Steer}, ""},
		{loop.Decision{Action: loop.Allow, Reason: "ok"}, "ok"},
	} {
		if got := BlockReason(tt.d, "fallback"); got != tt.want {
			t.Errorf("BlockReason(%+v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestNativeEventPrefersTheHarnessName(t *testing.T) {
	if got := NativeEvent(loop.HookEvent{Name: "Stop", NativeName: "AfterAgent"}); got != "AfterAgent" {
		t.Errorf("NativeEvent = %q, want AfterAgent", got)
	}
	if got := NativeEvent(loop.HookEvent{Name: "Stop"}); got != "Stop" {
		t.Errorf("NativeEvent without a native name = %q, want Stop", got)
	}
}

func TestCommandAnswerPrintsNothingOrOneLine(t *testing.T) {
	type hso struct{}
	if out := (CommandAnswer[hso]{}).Answer(loop.Decision{Action: loop.Allow}, "", "x"); out.Stdout != nil || out.Stderr != nil || out.Exit != 0 {
		t.Errorf("empty answer printed %+v, want nothing", out)
	}
	out := (CommandAnswer[hso]{}).Answer(loop.Decision{Action: loop.Block, EndSession: true}, "done <now>", "x")
	if want := `{"continue":false,"stopReason":"done <now>"}` + "\n"; string(out.Stdout) != want {
		t.Errorf("ending answer = %q, want %q", out.Stdout, want)
	}
}
