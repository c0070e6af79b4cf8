package shell

import (
	"slices"
	"strings"
	"testing"
)

// The lookup tables were maps; these lists are their entries, so that the
// switches and the sorted table that replaced them drop none.
func TestLookupTablesKeepEveryEntry(t *testing.T) {
	for _, n := range []string{"nice", "env", "exec", "timeout", "setsid", "ionice", "chrt", "taskset", "stdbuf",
		"nohup", "xargs", "parallel", "watch", "script", "sudo", "doas", "su", "runuser", "command", "builtin",
		"time", "busybox", "toybox", "pkexec"} {
		if g, ok := launcherFor(n); !ok || g.name != n {
			t.Errorf("launcherFor(%q) = %v, %v", n, g, ok)
		}
	}
	if !slices.IsSortedFunc(launcherTable, func(a, b launcher) int { return strings.Compare(a.name, b.name) }) {
		t.Error("launcherTable is not sorted by name: launcherFor's binary search misses entries")
	}
	for _, n := range []string{"cat", "less", "more", "head", "tail", "wc", "cmp", "ls", "stat", "file", "du",
		"md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "od", "hexdump", "nl", "cut",
		"basename", "dirname", "realpath", "readlink", "test", "[", "echo", "printf", "jq", "cd", "pushd",
		"popd", "hook-loop", "hook-loop-hook", "true", "false", ":", "grep", "egrep", "fgrep", "zcat",
		"column", "strings", "tac"} {
		if !plainReader(n) {
			t.Errorf("plainReader(%q) = false", n)
		}
	}
	for _, n := range []string{"status", "diff", "log", "show", "blame", "ls-files", "grep", "rev-parse",
		"check-ignore", "annotate", "shortlog"} {
		if !gitReader(n) {
			t.Errorf("gitReader(%q) = false", n)
		}
	}
	for _, n := range []string{"nice", "env", "exec", "timeout", "ionice", "chrt", "taskset", "stdbuf", "nohup",
		"sudo", "doas", "su", "runuser", "command", "builtin", "time", "busybox", "toybox", "pkexec"} {
		if !passesStatus(n) {
			t.Errorf("passesStatus(%q) = false", n)
		}
	}
	for _, n := range []string{"rm", "rmdir", "unlink", "shred", "tee", "mkdir", "touch", "truncate", "chmod",
		"chown", "chgrp", "mv", "cp", "install", "ln", "dd", "sed", "perl", "ruby", "rsync", "git", "find"} {
		if !writer(n) {
			t.Errorf("writer(%q) = false", n)
		}
	}
	for _, n := range []string{"", "rmx", "python", "vim", "Cat"} {
		if _, ok := launcherFor(n); ok || plainReader(n) || gitReader(n) || passesStatus(n) || writer(n) {
			t.Errorf("%q is in a table it was never in", n)
		}
	}
}
