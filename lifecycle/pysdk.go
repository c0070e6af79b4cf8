package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	pythonsdk "github.com/hook-loop/hook-loop/sdk/python"
)

// pythonSDKDir returns a directory holding the Python SDK (hook_loop_hooks/)
// that hook-loop ships, extracting it under cacheDir the first time. The
// directory is named by the files' hash, so an upgraded hook-loop gets its own
// copy and never edits one a running executor imported from.
func pythonSDKDir(cacheDir string) (string, error) {
	files, err := fs.Glob(pythonsdk.Files, "hook_loop_hooks/*.py")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	contents := map[string][]byte{}
	for _, f := range files {
		b, err := pythonsdk.Files.ReadFile(f)
		if err != nil {
			return "", err
		}
		contents[f] = b
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	dir := filepath.Join(cacheDir, "hook-loop", "python", hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "hook_loop_hooks", "__init__.py")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("python SDK: %w", err)
	}
	// Written beside and renamed into place, so a parallel hook process sees
	// either no copy or a whole one.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-")
	if err != nil {
		return "", fmt.Errorf("python SDK: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, "hook_loop_hooks"), 0o755); err != nil {
		return "", fmt.Errorf("python SDK: %w", err)
	}
	for f, b := range contents {
		if err := os.WriteFile(filepath.Join(tmp, "hook_loop_hooks", path.Base(f)), b, 0o644); err != nil {
			return "", fmt.Errorf("python SDK: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("python SDK: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "hook_loop_hooks", "__init__.py")); serr == nil {
			return dir, nil // another process won the race
		}
		return "", fmt.Errorf("python SDK: %w", err)
	}
	return dir, nil
}
