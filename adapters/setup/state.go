package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/scaffold"
)

// AnyCommand is one of the hook commands of a settings file (event ->
// commands), "" when there is none: every hook of one install names the same
// loop and log.
func AnyCommand(cmds map[string][]string) string {
	for _, cs := range cmds {
		if len(cs) > 0 {
			return cs[0]
		}
	}
	return ""
}

// StateFinding says where the state of the project at dir lives (the log an
// installed hook command args names with --event-log, else the project's
// .hook-loop folder; its key and pinned loops go with it) and whether the
// harness's write sandbox keeps the agent's commands away from it. sandbox
// describes the sandbox when it is on ("" when off); install names the
// harness's install command for the fix.
func StateFinding(args []string, dir, sandbox, install string) Finding {
	log := scaffold.FlagValue(args, "--event-log")
	if log == "" && scaffold.FlagValue(args, "--state") == project.StateUser {
		log = project.UserLogPath(dir, os.Getenv)
	} else if log == "" {
		log = filepath.Join(dir, ".hook-loop", "events.jsonl")
	} else if !filepath.IsAbs(log) {
		log = filepath.Join(dir, log)
	}
	state := filepath.Dir(log)
	rel, err := filepath.Rel(dir, state)
	inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	switch {
	case inside:
		fix := fmt.Sprintf("for a boundary that does not depend on the parser: %s --state user --write, and turn the harness's write sandbox on", install)
		if user := project.UserStateDir(os.Getenv); strings.HasPrefix(log, filepath.Clean(user)+string(filepath.Separator)) {
			// Already the user's state directory, which itself lies in the workspace.
			fix = fmt.Sprintf("hook-loop's state directory %s is inside the workspace: point HOOK_LOOP_STATE_DIR (or XDG_STATE_HOME) elsewhere, reinstall, and turn the harness's write sandbox on", user)
		}
		return Finding{Level: LevelOK,
			What: fmt.Sprintf("state (the event log) lives in %s, inside the workspace: not covered by a sandbox, only hook-loop's command parser keeps the agent from it", state),
			Fix:  fix}
	case sandbox != "" && underTemp(state):
		return Finding{Level: LevelWarn,
			What: fmt.Sprintf("state (the event log) lives in %s, under the temporary directory, which write sandboxes leave writable: not covered", state),
			Fix:  "keep hook-loop's state in the user's state directory (unset HOOK_LOOP_STATE_DIR or point it outside /tmp), then reinstall with --state user"}
	case sandbox == "":
		return Finding{Level: LevelWarn,
			What: fmt.Sprintf("state (the event log) lives in %s, outside the workspace, but no write sandbox is on: not covered", state),
			Fix:  "turn the harness's write sandbox on, so that no command of the agent can write outside the workspace"}
	}
	return Finding{Level: LevelOK,
		What: fmt.Sprintf("state (the event log) lives in %s, outside the workspace: writes covered by the sandbox (%s); reads are not, so the log's keys and pinned loops are kept from the agent's readers by hook-loop's guard alone", state, sandbox)}
}

// underTemp reports whether p lies under /tmp or $TMPDIR, which Codex's
// workspace-write sandbox leaves writable.
func underTemp(p string) bool {
	for _, t := range []string{"/tmp", os.TempDir()} {
		if t != "" && (p == t || strings.HasPrefix(p, filepath.Clean(t)+string(filepath.Separator))) {
			return true
		}
	}
	return false
}
