package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

func galleryCheck(t *testing.T, o *GalleryCheckOptions) (code int, out, errOut string) {
	t.Helper()
	var b, e bytes.Buffer
	o.IO = &IOStreams{In: strings.NewReader(""), Out: &b, ErrOut: &e}
	if o.Adapters == nil {
		o.Adapters = map[string]harness.Adapter{"codex": codex.New()}
	}
	err := runGalleryCheck(o)
	var x *ExitError
	switch {
	case err == nil:
	case errors.As(err, &x):
		code = x.Code
		e.WriteString(err.Error())
	default:
		t.Fatal(err)
	}
	return code, b.String(), e.String()
}

// gallery check replays every loop's recorded sessions through the chosen
// harness's adapter, prints each end state against the loop's promise, and
// fails when one differs.
func TestGalleryCheck(t *testing.T) {
	code, out, errOut := galleryCheck(t, &GalleryCheckOptions{Harnesses: []string{"codex"}})
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"plan_execute  codex  complete  done (completed)  done (completed)  ok", "recorded sessions end as their loops promise"} {
		if !strings.Contains(strings.Join(strings.Fields(out), "  "), strings.Join(strings.Fields(want), "  ")) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "claude") {
		t.Errorf("--harness codex checked another harness:\n%s", out)
	}

	// plan_execute without its rule for a passing verification never gets done.
	broken := func(loop string, b []byte) []byte {
		if loop != "plan_execute" {
			return b
		}
		for i := len(gjson.GetBytes(b, "codex.event_map").Array()) - 1; i >= 0; i-- {
			if gjson.GetBytes(b, fmt.Sprintf("codex.event_map.%d.emit", i)).String() == "step_done" {
				b, _ = sjson.DeleteBytes(b, fmt.Sprintf("codex.event_map.%d", i))
			}
		}
		return b
	}
	code, out, errOut = galleryCheck(t, &GalleryCheckOptions{Harnesses: []string{"codex"}, Edit: broken})
	if code != 1 || !strings.Contains(errOut, "recorded sessions end otherwise than their loop promises") {
		t.Fatalf("a broken loop: exit %d\n%s%s", code, out, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "plan_execute") && !strings.Contains(line, "DIFFERS") {
			t.Errorf("plan_execute passes although broken: %s", line)
		}
		if strings.HasPrefix(line, "approval_gate") && !strings.HasSuffix(line, "ok") {
			t.Errorf("an unbroken loop differs: %s", line)
		}
	}

	if code, _, errOut := galleryCheck(t, &GalleryCheckOptions{Harnesses: []string{"nope"}}); code != 2 || !strings.Contains(errOut, `--harness "nope": expected one of codex`) {
		t.Errorf("unknown harness: exit %d %s", code, errOut)
	}
}
