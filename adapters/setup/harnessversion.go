package setup

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// versionRE finds the first x.y.z in a harness's --version output.
var versionRE = regexp.MustCompile(`\d+\.\d+\.\d+`)

// CheckVersion runs `bin --version` (found on PATH, bounded to 10 s) and
// reports the harness's version against tested, the release hook-loop's
// end-to-end test drives: the same is ok, another is a warning (hook
// payloads and answers change between releases), a missing binary a warning.
func CheckVersion(ctx context.Context, bin, tested, product string) Finding {
	path, err := exec.LookPath(bin)
	if err != nil {
		return Finding{Level: LevelWarn, What: fmt.Sprintf("%s (%s) is not on PATH: cannot check its version", product, bin),
			Fix: "install it, e.g. npm install -g at version " + tested}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	v := versionRE.FindString(string(out))
	if err != nil || v == "" {
		return Finding{Level: LevelWarn, What: fmt.Sprintf("cannot read %s's version (%s --version: %v)", product, path, err),
			Fix: "check that " + path + " runs"}
	}
	if v != tested {
		return Finding{Level: LevelWarn, What: fmt.Sprintf("%s is %s; hook-loop was proven on %s (hook payloads and answers change between releases)", product, v, tested),
			Fix: "run hook-loop's end-to-end check, or use " + strings.TrimSpace(tested)}
	}
	return Finding{Level: LevelOK, What: fmt.Sprintf("%s %s, the release hook-loop was proven on", product, v)}
}
