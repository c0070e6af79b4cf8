package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/loop/engine"
)

// Check finds, once, the entries whose code cannot be loaded — a path or
// command that is not there, a module found neither beside the declaration nor
// by Python — and returns the one hooks.load_failed record naming each by its
// JSON path (nil when all load). Such an entry is then not called: a failure
// known at load is not a hooks.failed at every point. A required one still
// refuses where it runs, so a hook that is missing never opens the gate.
func (r *Runner) Check() *engine.LifecycleRecord { return r.check(true) }

// checkCheap is Check without starting python3, for the hook path: a module
// found neither beside the declaration nor on PYTHONPATH is not a load
// failure there but is left to fail at its own call (hooks.failed), so that
// no hook event pays a process (and up to its timeout) per such module.
// `hooks show`, `hooks test` and doctor keep the full Check.
func (r *Runner) checkCheap() *engine.LifecycleRecord { return r.check(false) }

func (r *Runner) check(python bool) *engine.LifecycleRecord {
	if r == nil {
		return nil
	}
	var whys []string
	for i := range r.entries {
		e := &r.entries[i]
		if e.Disabled {
			continue
		}
		if err := r.loadable(*e, python); err != nil {
			e.loadErr = err
			whys = append(whys, fmt.Sprintf("hooks[%d] (%q).%s", i, e.Name, err))
		}
	}
	if len(whys) == 0 {
		return nil
	}
	rec := LoadFailedRecord(errors.New(strings.Join(whys, "; ")))
	rec.Payload["partial"] = len(whys) < len(r.entries)
	return &rec
}

func (r *Runner) loadable(e Entry, python bool) error {
	switch e.Kind() {
	case "path":
		if _, err := os.Stat(e.Path); err != nil {
			return fmt.Errorf("path: %s is not there", e.Path)
		}
	case "command":
		f := e.File()
		if f != "" {
			_, err := os.Stat(f)
			if err == nil {
				return nil
			}
		}
		return fmt.Errorf("command: %s is not found (on PATH or at that path)", e.Command[0])
	case "module":
		if e.File() != "" || r.moduleOnPythonPath(e) || !python || r.moduleByPython(e) {
			return nil
		}
		return fmt.Errorf("module: %s is found neither beside the declaration (%s) nor by python3", e.Module, e.Dir)
	}
	return nil
}

// moduleOnPythonPath reports whether a module is a file under a PYTHONPATH
// directory: a stat per directory, no process.
func (r *Runner) moduleOnPythonPath(e Entry) bool {
	mod, _, _ := strings.Cut(e.Module, ":")
	for _, dir := range filepath.SplitList(r.getenv()("PYTHONPATH")) {
		base := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(mod, ".", "/")))
		for _, f := range []string{base + ".py", filepath.Join(base, "__init__.py")} {
			if _, err := os.Stat(f); err == nil {
				return true
			}
		}
	}
	return false
}

// moduleByPython asks Python whether it finds an installed module; only a
// module found by neither cheaper look costs this process.
func (r *Runner) moduleByPython(e Entry) bool {
	mod, _, _ := strings.Cut(e.Module, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec(sys.argv[1]) is None)", mod)
	cmd.Dir = e.Dir
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		// Python itself missing or slow is the executor's own failure, at
		// its call: only a clear "not found" is a load failure.
		return !errors.As(err, &exit) || exit.ExitCode() != 1
	}
	return true
}
