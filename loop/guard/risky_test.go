package guard

import (
	"testing"
	"unicode"

	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

func risky(command string) string {
	for _, c := range shell.Parse(command) {
		if why := RiskyCall(c); why != "" {
			return why
		}
	}
	return ""
}

func TestRiskyCommandsBlocked(t *testing.T) {
	for _, c := range []string{
		"rm -rf build", "cd sub && rm -rf ../x", "sudo apt-get install x", "FOO=1 rm -r dir",
		"env A=b rm -fr d", "git push --force origin main", "git push origin +main",
		"git reset --hard HEAD~1", "rm ~/.bashrc", "ls; rm -R x", "git clean -fdx",
		"rm /etc/passwd", "rm .git/config", "dd if=x of=/dev/sda", "chmod -R 777 /", "mkfs.ext4 /dev/sdb",
		"git checkout .", "git restore .",
		// the same harm in other spellings and by other commands
		`\rm -rf build`, "command rm -rf build",
		"find . -name '*.o' -delete", "find . -type f -exec rm {} +", "find . -execdir rm -f {} ;",
		"git checkout -f", "git checkout --force main",
		"git stash drop", "git stash drop stash@{1}", "git stash clear",
		"git branch -D topic", "git branch --delete --force topic", "git branch -d -f topic", "git branch -df topic",
		"git push origin :topic", "git push --delete origin topic", "git push -d origin topic",
		// killing the hooks themselves
		"pkill -f claude-hook", "pkill -9 -f hook-loop", "killall hook-loop", "busybox pkill -f codex-hook",
		"pkill -f __hookd", "pkill -9 -f hookd", "pkill -f pg-keeper",
		"pkill -f copilot-hook", "pkill -f qwen-hook",
	} {
		if why := risky(c); why == "" {
			t.Errorf("%q allowed", c)
		}
	}
}

func TestSafeCommandsAllowed(t *testing.T) {
	for _, c := range []string{
		"rm /tmp/x.txt", "git commit -m 'rm -rf'", "go test ./...", "git push origin main",
		"rm build.log", "git status", "rm -f build/x.o", "git stash list", "git stash", "git stash pop",
		"git branch -d merged", "git branch --delete merged", "git checkout main", "git checkout -b topic",
		"find . -name '*.go'", "find . -exec grep -l x {} +", "git push origin topic:topic",
		"kill 1234", "pkill -f 'node server.js'", "killall python3",
	} {
		if why := risky(c); why != "" {
			t.Errorf("%q blocked: %s", c, why)
		}
	}
}

// TestDropsSQLAsTheExpression: the "drop" pre-check never changes what
// dropSQL decides: nothing but d, r, o and p in either case folds to them,
// and on commands with and without it the two agree.
func TestDropsSQLAsTheExpression(t *testing.T) {
	for _, c := range "drop" {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f != unicode.ToUpper(c) {
				t.Fatalf("%q folds to %q: the ASCII pre-check would miss it", c, f)
			}
		}
	}
	for _, cmd := range []string{
		"psql -c 'DROP TABLE users'", "psql -c 'drop   database x'", "drop\tschema s", "DrOp TaBlE t",
		"echo drop tables", "psql -c 'drop table'", "xdrop table t", "drop table_x", "drop ſchema s",
		"go test ./...", "dro p table", "d\u0280op table", "", "drop", "drop table", "DROP\nTABLE t",
		"echo dropped table", "backdrop database", "drop-table", "drop \u00a0table",
	} {
		if got, want := dropsSQL(cmd), dropSQL().MatchString(cmd); got != want {
			t.Errorf("%q: dropsSQL %v, dropSQL %v", cmd, got, want)
		}
	}
}

func FuzzDropsSQL(f *testing.F) {
	f.Add("psql -c 'DROP TABLE users'")
	f.Add("drop ſchema s")
	f.Fuzz(func(t *testing.T, cmd string) {
		if got, want := dropsSQL(cmd), dropSQL().MatchString(cmd); got != want {
			t.Errorf("%q: dropsSQL %v, dropSQL %v", cmd, got, want)
		}
	})
}
