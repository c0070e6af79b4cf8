package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed"
)

// FuzzShellParse checks two things on any input: Parse never panics (a hook must
// answer whatever the agent runs), and a risky command wrapped the ways agents
// wrap commands (bash -c, sudo, env prefixes, cd x &&, a subshell, a pipeline)
// is still found as its own call, whatever word the fuzzer puts in it.
func FuzzShellParse(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", "cd x && rm -rf y", "sudo rm -rf /", "FOO=1 BAR=2 rm -rf build",
		"bash -c 'rm -rf /'", `sh -c "cd /tmp && rm -rf x"`, "env -i A=1 rm -rf .",
		"echo $(rm -rf /)", "(rm -rf x)", "a | xargs rm -rf", "cat <<EOF > PLAN.md\n1. x\nEOF",
		"echo 'unterminated", "git push --force origin main", "timeout 5 nice -n 3 rm -rf x",
		"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\nEOF",
		strings.Repeat("(", 2000), strings.Repeat("$(", 500), strings.Repeat("bash -c '", 50),
		"", "\x00", "ls\n\n;;", "for i in 1 2; do rm -rf $i; done", "x=$(( 1 + ))",
	} {
		f.Add(s, "build")
	}
	if payloads, err := seedCommands(); err == nil {
		for _, c := range payloads {
			f.Add(c, "target")
		}
	} else {
		f.Logf("shell fuzz: %v", err)
	}
	f.Fuzz(func(t *testing.T, src, target string) {
		_ = Parse(src)
		for _, c := range Parse(src) {
			_ = Unwrap(c.Args)
		}
		if target == "" || strings.ContainsAny(target, "\x00") {
			return
		}
		q := quote(target)
		inner := "rm -rf " + q
		for _, form := range []string{
			inner,
			"sudo " + inner,
			"FOO=1 env BAR=2 " + inner,
			"cd " + q + " && " + inner,
			"bash -c " + quote(inner),
			"sudo -u root sh -c " + quote("cd /tmp; "+inner),
			"(" + inner + ")",
			"echo " + q + " | " + inner,
			"true || " + inner,
		} {
			if !hasRm(Parse(form)) {
				t.Fatalf("rm -rf not found in %q: %#v", form, Parse(form))
			}
		}
	})
}

// quote single-quotes s for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func hasRm(calls []Call) bool {
	for _, c := range calls {
		a := Unwrap(c.Args)
		if len(a) >= 2 && a[0] == "rm" && a[1] == "-rf" {
			return true
		}
	}
	return false
}

// seedCommands are the shell commands of every captured tool call.
func seedCommands() ([]string, error) {
	var out []string
	for _, h := range []string{"codex", "claude", "opencode", "pi"} {
		ps, err := fuzzseed.Payloads(h)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out = append(out, fuzzseed.Strings(p.Data, "command", "cmd")...)
		}
	}
	return out, nil
}

// FuzzAnalyze checks that Analyze never panics on any input, and that a file
// removed through the forms an agent uses (a cd, a subshell, $PWD, braces,
// bash -c) is reported at its real path whatever its name.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"rm *.json", "mv hook-loop.json{,.bak}", "cd sub && rm ../x", "(cd sub; rm f)",
		"pushd a && rm b && popd", "rm $PWD/x $(pwd)/y `pwd`/z ~/w", "find . -name '*.go' -delete",
		"git stash -u", "sed -Ei s/a/b/ f", "python3 -c \"os.remove('x')\"", "bash <<EOF\nrm x\nEOF",
		"for f in *; do rm $f; done", "x{1..100000}", strings.Repeat("{a,b}", 30),
		strings.Repeat("(", 10000), strings.Repeat("$(", 3000), strings.Repeat("{ ", 10000),
		strings.Repeat("(cd a; rm b); ", 2000), strings.Repeat("bash -c '", 50), "\x00", "",
		"rm / // /. /.. . ..", "find / -maxdepth 0 -delete", "cd / && rm -rf *", "cd; rm x",
	} {
		f.Add(s, "target")
	}
	dir := f.TempDir()
	for _, d := range []string{"sub", "a"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	env := Env{Dir: dir, Root: dir, Home: "/home/u"}
	f.Fuzz(func(t *testing.T, src, target string) {
		_ = Analyze(src, env)
		// Invalid UTF-8 is read as U+FFFD (see parse), and the shell parser
		// reads a CR before a newline as part of the line ending, even inside
		// quotes, so such names are not reported byte for byte.
		if target == "" || !utf8.ValidString(target) || strings.ContainsAny(target, "\x00/~") || strings.Contains(target, "\r\n") || strings.HasPrefix(target, "-") || target == "." || target == ".." {
			return
		}
		q := quote(target)
		for _, c := range []struct{ form, want string }{
			{"rm -- " + q, filepath.Join(dir, target)},
			{"cd sub && rm -- " + q, filepath.Join(dir, "sub", target)},
			{"(cd sub; rm -- " + q + "); ls", filepath.Join(dir, "sub", target)},
			{"pushd a && popd && rm -- " + q, filepath.Join(dir, target)},
			{"rm -- \"$PWD\"/" + q, filepath.Join(dir, target)},
			{"rm -- " + q + "{,.bak}", filepath.Join(dir, target+".bak")},
			{"bash -c " + quote("cd a; rm -- "+q), filepath.Join(dir, "a", target)},
		} {
			an := Analyze(c.form, env)
			if !slices.ContainsFunc(an.Writes, func(w Target) bool { return w.Path == c.want }) {
				t.Fatalf("%q: %s not among %+v", c.form, c.want, an.Writes)
			}
		}
	})
}
