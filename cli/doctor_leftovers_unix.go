//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

func stopProcess(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// leftoverServers are this user's processes whose first argument is one of
// leftoverArgs. The servers ran only on Linux, where /proc lists them.
func leftoverServers() []leftoverServer {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	uid := os.Getuid()
	var out []leftoverServer
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		info, err := os.Stat(filepath.Join("/proc", e.Name()))
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimRight(raw, "\x00"), []byte{0})
		if len(args) < 2 {
			continue
		}
		for _, a := range leftoverArgs {
			if string(args[1]) == a {
				out = append(out, leftoverServer{pid: pid, cmd: string(bytes.Join(args, []byte(" ")))})
			}
		}
	}
	return out
}
