package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestUnwrapLaunchers: each launcher's options are read by its grammar, so
// the program it runs is found whatever options it is given, nested
// launchers included; a launcher that runs no program gives nothing.
func TestUnwrapLaunchers(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"nice -n 5 rm x", "rm x"}, {"nice -5 rm x", "rm x"}, {"nice --adjustment=5 rm x", "rm x"}, {"nice", ""},
		{"env -u X rm x", "rm x"}, {"env -C /tmp -i A=1 B=2 rm x", "rm x"}, {"env - rm x", "rm x"}, {"env --unset X -- rm x", "rm x"},
		{"env -S 'rm x' y", "sh -c rm x y"}, {"env A=1", ""},
		{"exec -a name rm x", "rm x"}, {"exec -cl rm x", "rm x"},
		{"timeout -s KILL 10 rm x", "rm x"}, {"timeout -k 5 --signal=TERM 10s rm x", "rm x"}, {"timeout 5", ""},
		{"setsid -f -w rm x", "rm x"}, {"ionice -c 3 rm x", "rm x"}, {"ionice -c2 -n7 rm x", "rm x"}, {"ionice -p 12", ""},
		{"chrt -f 10 rm x", "rm x"}, {"chrt --idle 0 rm x", "rm x"}, {"chrt -p 5 12", ""},
		{"taskset 0x3 rm x", "rm x"}, {"taskset -c 0-1 rm x", "rm x"}, {"taskset -p 3 12", ""},
		{"stdbuf -o L -eL rm x", "rm x"}, {"nohup rm x", "rm x"},
		{"xargs -n 1 -I {} rm x", "rm x"}, {"xargs -0 -a list rm", "rm"}, {"xargs -P4 -d '\n' rm", "rm"},
		{"parallel -j 2 rm {} ::: a b", `sh -c rm {} "$@"`}, {"watch -n 1 rm x", "sh -c rm x"}, {"watch -x rm x", "rm x"},
		{"script -q -c 'rm x' /dev/null", "sh -c rm x"}, {"script out.log", ""},
		{"sudo -u me -- rm x", "rm x"}, {"sudo -E rm x", "rm x"}, {"sudo -s rm x", "sh -c rm x"}, {"sudo -l", ""},
		{"doas -u me rm x", "rm x"}, {"su -c 'rm x'", "sh -c rm x"}, {"su - me -c 'rm x'", "sh -c rm x"}, {"su me", ""},
		{"runuser -u me -- rm x", "rm x"}, {"runuser -l me -c 'rm x'", "sh -c rm x"},
		{"command rm x", "rm x"}, {"command -v rm", ""}, {"builtin cd x", "cd x"}, {"/usr/bin/time -o t -f %e rm x", "rm x"},
		{"busybox rm x", "rm x"}, {`\nice rm x`, "rm x"},
		{"nice env timeout 5 rm x", "rm x"}, {"nice -n 5 env -u X timeout -s KILL 10 setsid -f rm x", "rm x"},
		{"go test ./...", "go test ./..."}, {"make -j4", "make -j4"},
	} {
		got := strings.Join(Unwrap(Words(tc.cmd)), " ")
		if got != tc.want {
			t.Errorf("%s: runs %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestLaunchReportsWhatItCannotKnow: xargs and parallel add words from
// their input; env -C and sudo -D move the program's directory.
func TestLaunchReportsWhatItCannotKnow(t *testing.T) {
	if l := Launch(Words("nice xargs -r rm")); !l.More || !slices.Equal(l.Via, []string{"nice", "xargs"}) {
		t.Errorf("xargs: %+v", l)
	}
	if l := Launch(Words("nice rm x")); l.More {
		t.Errorf("nice: %+v", l)
	}
	if l := Launch(Words("env -C a sudo -D b rm x")); !slices.Equal(l.Dirs, []string{"a", "b"}) {
		t.Errorf("dirs: %+v", l)
	}
}

// TestParseSeesFindExec: the programs find runs are calls of their own,
// launchers and shells inside them too.
func TestParseSeesFindExec(t *testing.T) {
	var got []string
	for _, c := range Parse(`find . -name x -exec true \; -execdir nice sh -c 'rm y' {} +`) {
		got = append(got, strings.Join(c.Args, " "))
	}
	for _, want := range []string{"true", "nice sh -c rm y {}", "rm y"} {
		if !slices.Contains(got, want) {
			t.Errorf("calls %q lack %q", got, want)
		}
	}
}

// TestLaunchedWritesAnalysed: the write analysis judges the program a
// launcher runs, in the directory the launcher gives it.
func TestLaunchedWritesAnalysed(t *testing.T) {
	env, protected := project(t)
	for _, cmd := range []string{
		"nice -n 5 rm hook-loop.json", "timeout -s KILL 10 truncate -s0 .hook-loop/events.jsonl",
		"env -C sub rm ../hook-loop.json", "su -c 'rm hook-loop.json'", "watch -n1 rm hook-loop.json",
		"parallel rm ::: hook-loop.json", `find . -maxdepth 0 -exec ionice -c3 rm hook-loop.json \;`,
	} {
		an := Analyze(cmd, env)
		if verdict(an, env, protected) == "" && len(an.Uncertain) == 0 {
			t.Errorf("%s: writes %v, nothing protected and nothing uncertain", cmd, an.Writes)
		}
	}
}

// TestLinkDestOnlyWhereLinksAreMade: the folder ln, or cp -s/-l of files,
// makes its links in is a link destination; a copy's destination (cp,
// cp -r, cp -rs, cp -a -l) is written like any copy's.
func TestLinkDestOnlyWhereLinksAreMade(t *testing.T) {
	dir := t.TempDir()
	env := Env{Dir: dir, Root: dir, Home: dir}
	for cmd, want := range map[string]bool{
		"ln -s /x d": true, "ln -t d /x": true, "cp -s /x d": true, "cp -l /x d": true, "cp --symbolic-link /x d": true,
		"cp /x d": false, "cp -r /x d": false, "cp -rs /x d": false, "cp -a -l /x d": false, "cp -s --recursive /x d": false,
		"cp -sR /x d": false, "cp --archive --link /x d": false,
	} {
		got := false
		for _, n := range Analyze(cmd, env).Named {
			if n.Word == "d" {
				got = n.LinkDest
			}
		}
		if got != want {
			t.Errorf("%s: LinkDest of d = %v, want %v", cmd, got, want)
		}
	}
}
