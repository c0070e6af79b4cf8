package cli

import (
	"fmt"

	"github.com/hook-loop/hook-loop/adapters/setup"
)

// sessionFindings are doctor's lines about the project's live sessions: a loop
// file that changed or went missing under a session that keeps its pinned loop,
// tampered log lines, a session held by a lifecycle failure.
//
// It reads the log the hooks write: the store when one is configured (getenv:
// $HOOK_LOOP_STORE, the user config's "store"), else the JSONL file.
func sessionFindings(root string, getenv func(string) string) []setup.Finding {
	var out []setup.Finding
	warn := func(what, fix string) {
		out = append(out, setup.Finding{Level: setup.LevelWarn, Harness: "loop", What: what, Fix: fix})
	}
	log, err := openProjectLog(root, "", "", getenv)
	if err != nil {
		warn(fmt.Sprintf("cannot open the event log: %v", err), "")
		return out
	}
	defer log.Close()
	if ok, err := log.Exists(); err != nil || !ok {
		return nil
	}
	logPath := log.Where()
	err = log.View(func(tx viewTx) error {
		for _, id := range tx.SessionIDs() {
			v := tx.Session(id)
			if v.Outcome != "" {
				continue
			}
			switch v.LoopFile {
			case "":
			case "missing":
				warn(fmt.Sprintf("session %s: the loop file is gone; the session keeps its pinned loop %.12s", id, v.Pinned),
					"restore it (`git checkout hook-loop.json`), or uninstall with `hook-loop <harness> uninstall --write`")
			default:
				warn(fmt.Sprintf("session %s: the loop file changed; the session keeps its pinned loop %.12s", id, v.Pinned),
					fmt.Sprintf("`hook-loop reload --session %s` applies the new loop to it", id))
			}
			if v.Tampered != "" {
				warn(fmt.Sprintf("session %s: the event log has lines hook-loop did not write (%s)", id, v.Tampered), "inspect with `hook-loop log verify`")
			}
			if v.Held != "" {
				warn(fmt.Sprintf("session %s is held: %s", id, v.Held), fmt.Sprintf("fix the hook, then `hook-loop reload --session %s`", id))
			}
		}
		return nil
	})
	if err != nil {
		warn(fmt.Sprintf("cannot read the event log %s: %v", logPath, err), "")
	}
	return out
}
