// Command hook-loop-hook is hook-loop's lean hook binary. It runs the
// <harness>-hook commands a harness calls on every event — the same code as
// `hook-loop <harness>-hook` (package hook) — and links nothing a hook does
// not use: no CLI, no database driver, no HTTP, no YAML, no templates. It so
// starts about as fast as any small Go program, where hook-loop pays for all
// of its commands at every start.
//
// What it does not carry it hands to hook-loop, installed beside it, by
// exec'ing it with the same arguments before reading stdin: every other
// command, and a hook that needs a database store (--store, $HOOK_LOOP_STORE)
// or the user's config (lifecycle hooks, a "store" key). Installs write it into
// a harness's hooks only when it is beside hook-loop and of the same build.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/version"
)

func main() {
	os.Exit(run(env{
		args: os.Args, in: os.Stdin, out: os.Stdout, errOut: os.Stderr,
		getenv: os.Getenv, exec: execFull, executable: os.Executable,
	}))
}

// env is what run takes from its process, so tests run it in-process.
type env struct {
	args        []string
	in          io.Reader
	out, errOut io.Writer
	getenv      func(string) string
	// exec replaces the process (syscall.Exec); it returns only on failure.
	exec       func(path string, argv, envv []string) error
	executable func() (string, error)
}

// FullName is the full binary's name: hook-loop-hook hands it what it does
// not run itself.
const FullName = "hook-loop"

func run(e env) int {
	args := e.args
	if len(args) == 2 {
		switch args[1] {
		case "--version", "-v":
			fmt.Fprintf(e.out, "%s version %s\n", FullName, version.String())
			return 0
		case "--build":
			// What an install compares with its own build before it writes this
			// binary into a harness's hooks.
			fmt.Fprintln(e.out, version.Build())
			return 0
		}
	}
	h, flags, isHook := hookOf(args)
	if isHook && !flags.NeedsFull(e.getenv) {
		return runHook(e, h, flags)
	}
	full, err := fullBinary(e.executable)
	if err == nil {
		err = e.exec(full, append([]string{full}, args[1:]...), os.Environ())
	}
	// Still here: hook-loop could not be started.
	if isHook {
		// The lean run answers what it can and reports, per the loop's
		// fail_closed, what needed hook-loop (a database store is refused, the
		// lifecycle hooks are logged as not loaded): never a silent pass.
		fmt.Fprintf(e.errOut, "hook-loop-hook: this hook needs %s, which could not be started: %v\n", FullName, err)
		return runHook(e, h, flags)
	}
	fmt.Fprintf(e.errOut, "hook-loop-hook: runs only the <harness>-hook commands; the rest is %s's, which could not be started: %v\n", FullName, err)
	return 2
}

// hookOf reads `<name>-hook FLAGS`; isHook is false for anything else,
// flags it cannot read plainly included (--help: hook-loop prints it).
func hookOf(args []string) (h harness.Hooks, flags hook.Flags, isHook bool) {
	if len(args) < 2 {
		return nil, flags, false
	}
	for _, c := range hooks.All() {
		if c.Name()+"-hook" == args[1] {
			h = c
		}
	}
	if h == nil {
		return nil, flags, false
	}
	flags, ok := hook.ParseFlags(args[2:])
	return h, flags, ok
}

func runHook(e env, h harness.Hooks, flags hook.Flags) int {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	r := hook.New(hook.Deps{Getenv: e.getenv, OwnedPaths: hooks.OwnedPaths(hooks.All(), home, e.getenv)})
	return r.RunCommand(context.Background(), hook.Command{
		Harness: h, Flags: flags, In: e.in, Out: e.out, ErrOut: e.errOut, WorkDir: wd,
	})
}

// fullBinary is hook-loop beside this binary.
func fullBinary(executable func() (string, error)) (string, error) {
	self, err := executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	// On Windows both names end in .exe.
	full := filepath.Join(filepath.Dir(self), FullName+filepath.Ext(self))
	if _, err := os.Stat(full); err != nil {
		return "", fmt.Errorf("%s: %w", full, err)
	}
	return full, nil
}
