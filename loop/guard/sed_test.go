package guard

import (
	"path/filepath"
	"testing"
)

// TestSedScriptWritesRefused: a sed script's w, W and s///w write the file
// they name, and its e runs a shell command: judged as such, however the
// script is given.
func TestSedScriptWritesRefused(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"sed -n 'w .claude/settings.json' a.txt", "sed 's/x/y/w hook-loop.json' a.txt", "sed -e 'W .hook-loop/events.jsonl' a.txt",
		"sed -n '$!N; w hook-loop.json' a.txt", "sed -n '/x/{p;w hook-loop.json\n}' a.txt", "sed --expression='w hook-loop.json' a.txt",
		"sed --exp 'w hook-loop.json' a.txt", "sed -ne 'w hook-loop.json' a.txt", "sed -n -e p -e 'w hook-loop.json' a.txt",
		"sed 'y/abc/xyz/;w hook-loop.json' a.txt", "sed ':a;N;$!ba;w hook-loop.json' a.txt", "sed 's|a|b|gw hook-loop.json' a.txt",
		"cd sub && sed -n 'w ../hook-loop.json' b.txt", "nice sed -n 'w hook-loop.json' a.txt", "bash -c \"sed -n 'w hook-loop.json' a.txt\"",
		"sed -n '1e rm hook-loop.json' a.txt", "sed -n 'e gzip .claude/settings.json' a.txt",
		"sed -n '1e hook-loop claude uninstall --write' a.txt", "sed -n p -i hook-loop.json", "sed -n p --in-place hook-loop.json",
		// A label ends at a blank; a bracket expression holds the delimiter.
		"sed -n ':a w hook-loop.json' a.txt", "sed ':a e rm hook-loop.json' a.txt", "sed -n 'v 4.2 w hook-loop.json' a.txt",
		"sed -n 'ba w .claude/settings.json' a.txt", "sed -n 's/[/]/a/w hook-loop.json' a.txt", "sed 's/[/]/a/;e rm hook-loop.json' a.txt",
		"sed ':a e gzip .claude/settings.json' a.txt", "sed 's/[/]/a/;e gzip .claude/settings.json' a.txt",
	} {
		wantRefused(t, p, cmd)
	}
	// Text made as it runs, or a script in a file, is unknown.
	pc := launchProject(t, false, true)
	for _, cmd := range []string{"sed 's/.*/rm hook-loop.json/e' a.txt", "sed -f evil.sed a.txt", "sed -n '1e' a.txt", "sed 's/[/]/a/e' a.txt"} {
		wantRefused(t, pc, cmd)
	}
}

// TestSedPrintingReadsLoopFiles: sed printing a loop file (no -i, no w, W
// or e) only reads it, as cat does.
func TestSedPrintingReadsLoopFiles(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		p := launchProject(t, false, failClosed)
		for _, cmd := range []string{
			"sed -n '1,20p' hook-loop.json", `sed -n '/"states"/,/]/p' hook-loop.json`, "sed -n '1p;$p' .hook-loop/events.jsonl",
			"sed 's/a/b/g' hook-loop.json", "sed -e 's/a/b/' -e 's/c/d/' hook-loop.json | head", `sed -E 's/([a-z]+)/\1/g' hook-loop.json`,
			"sed '1!G;h;$!d' hook-loop.json", `sed ':a;N;$!ba;s/\n/ /g' hook-loop.json`, "sed -n '/start/,/end/{/end/!p}' hook-loop.json",
			"sed 's|/|_|g' hook-loop.json", "sed '/^#/d' .claude/settings.json", "sed '5q' hook-loop.json", "sed -n l hook-loop.json",
			"sed '$a\\\ntext' hook-loop.json", "sed --sandbox -n p hook-loop.json", "sed -n --debug p hook-loop.json",
			"sed 's/x/y/2' hook-loop.json", "sed 'y/abc/xyz/' hook-loop.json", "sed = hook-loop.json", "sed -n '/e/p' hook-loop.json",
			"sed 's/[/]/_/g' hook-loop.json", "sed -n ':a p' hook-loop.json", "sed -n '/[[:alpha:]/]/p' hook-loop.json",
		} {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s)", failClosed, cmd, got.Reason)
			}
		}
	}
}

// TestSedReadsOfSecretsRefused: sed's r and R read the file they name.
func TestSedReadsOfSecretsRefused(t *testing.T) {
	p := secretsProject(t, false)
	k := filepath.Join(p.Home, ".local", "state", "hook-loop", "keys", "k1")
	for _, cmd := range []string{"sed 'r " + k + "' a.txt", "sed -n '1R " + k + "' a.txt", "sed -n p " + k} {
		wantRefused(t, p, cmd)
	}
}

// TestAwkPrintingReadsLoopFiles: awk with only -F and -v, whose program
// has no redirection, pipe, system() or @, only reads the files it names.
func TestAwkPrintingReadsLoopFiles(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		p := launchProject(t, false, failClosed)
		for _, cmd := range []string{
			"awk 'NR<5' .hook-loop/events.jsonl", "awk '{print $1}' hook-loop.json", "awk -F: '{print $2}' hook-loop.json",
			"awk -v n=3 'NR<n' hook-loop.json", "awk 'END{print NR}' .hook-loop/events.jsonl", "gawk '{print}' hook-loop.json",
			"awk --field-separator=: '{print}' hook-loop.json", "nice awk '{print}' hook-loop.json",
			// Patterns alone (no action) print the lines they match: their > compares.
			"awk 'NR>1' hook-loop.json", "awk '$3 > 100' .hook-loop/events.jsonl", "awk 'length > 72; NR==1' hook-loop.json",
		} {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s)", failClosed, cmd, got.Reason)
			}
		}
	}
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		`awk '{print > "hook-loop.json"}' a.txt`, "awk '{print}' a.txt > hook-loop.json", `awk 'BEGIN{system("rm hook-loop.json")}'`,
		`awk '{print | "sh"}' hook-loop.json`, `awk '{print > FILENAME}' hook-loop.json`, `awk '{print |& "sh"}' hook-loop.json`,
		"awk -f x.awk hook-loop.json", "awk -i inplace '{print}' hook-loop.json", "awk --pretty-print=hook-loop.json '{print}' a.txt",
		"awk -o '{print}' hook-loop.json", `awk '@load "x"; {print}' hook-loop.json`, "awk -e '{print}' hook-loop.json",
		`awk "$(cat prog.awk)" hook-loop.json`, `awk '{f=FILENAME; print "" > f}' hook-loop.json`,
		`awk 'NR>1{print > "hook-loop.json"}' a.txt`, `awk 'NR>1 { print $0 > FILENAME }' hook-loop.json`,
		"awk 'NR>1' a.txt > hook-loop.json",
	} {
		wantRefused(t, p, cmd)
	}
}
