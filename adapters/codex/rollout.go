package codex

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/project/regfile"
	"github.com/tidwall/gjson"
)

// rolloutExitCode finds the exit code of call callID in the Codex session
// rollout at path. Codex writes an event_msg item_completed entry (item.id =
// call id, item.exit_code) just before it starts the PostToolUse hooks; the
// function_call_output that follows also says "Process exited with code N".
// Only the file's tail is read, from the end, so the cost does not grow with
// the session. When the entry is not there yet the read is retried a few times
// within RolloutWait. nil means unknown.
func (a *Adapter) rolloutExitCode(path, callID string) *int {
	var code *int
	a.searchRollout(path, callID, 0, func(buf []byte) (found, settled bool) {
		code, found, settled = scanLines(buf, callID)
		return found, settled
	})
	return code
}

// rolloutCallArgs finds the arguments of function call callID in the
// rollout at path: Codex persists the model's function_call item before it
// runs the call (and its PreToolUse hooks), and the hook's tool_input keeps
// only the command of it, not the workdir it runs in. size is how long the
// call's input is in the hook's payload: the rollout's line holds it
// escaped twice, so the tail read grows to fit it. opened is false when
// there is no rollout to read.
func (a *Adapter) rolloutCallArgs(path, callID string, size int) (args string, found, opened bool) {
	opened = a.searchRollout(path, callID, escapedSize(size), func(buf []byte) (bool, bool) {
		var settled bool
		args, found, settled = scanCall(buf, callID)
		return found, settled
	})
	return args, found, opened
}

// escapedSize bounds the bytes n bytes of a call's input, as the hook's
// payload holds it (JSON, escaped once), take in its rollout line, where it
// is escaped again as the line's arguments string: at most twice as long
// (\" for ", \\u0001 for \u0001), with room for the line's own fields. A
// call padded past that is not found, and refused as unseen.
func escapedSize(n int) int64 { return 2*int64(n) + 64<<10 }

// searchRollout runs scan on the rollout's tail until it finds what it looks
// for, retrying within RolloutWait while waiting can help. A retry reads only
// what was appended since the last read: what scan looks for can only
// appear there. extra widens the tail read beyond RolloutTail. opened is
// false when the rollout could not be opened as a regular file.
func (a *Adapter) searchRollout(path, callID string, extra int64, scan func([]byte) (found, settled bool)) (opened bool) {
	deadline := time.Now().Add(a.RolloutWait)
	wait := 10 * time.Millisecond
	from := int64(-1)
	for {
		found, retry, ok := a.scanRollout(path, callID, extra, &from, scan)
		opened = opened || ok
		if found || !retry || !time.Now().Add(wait).Before(deadline) {
			return opened
		}
		sleep := a.sleep
		if sleep == nil {
			sleep = time.Sleep
		}
		sleep(wait)
		wait *= 2
	}
}

// scanRollout reads the tail once, growing the window from 16 KiB up to
// RolloutTail+extra: the entry is almost always among the last few lines.
// From a retry on (*from >= 0) it reads from *from, the start of the first
// line not yet read whole, instead. retry is false when waiting cannot help
// (no such file, not a regular file, or scan reports the rollout settled
// without what it looks for).
func (a *Adapter) scanRollout(path, callID string, extra int64, from *int64, scan func([]byte) (found, settled bool)) (found, retry, opened bool) {
	// Not waiting on the open, and only a regular file: a rollout path
	// turned into a FIFO must not hold the hook (regfile).
	f, fi, err := regfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return false, false, false
	}
	defer f.Close()
	if callID == "" {
		return false, false, true
	}
	size := fi.Size()
	limit := a.RolloutTail
	if limit <= 0 {
		limit = 256 << 10
	}
	limit += extra
	window := int64(firstWindow)
	prev := *from
	if prev >= 0 {
		if *from >= size {
			return false, true, true
		}
		window = size - *from
	}
	for ; ; window *= 4 {
		if window > limit {
			window = limit
		}
		off := size - window
		if off < 0 {
			off = 0
		}
		bp := tailBuffer(size - off)
		buf := *bp
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			putTailBuffer(bp)
			return false, true, true
		}
		buf = buf[:n]
		start := off
		if off > 0 && off != prev {
			// The first line is cut by the window; it cannot be parsed.
			if i := bytes.IndexByte(buf, '\n'); i >= 0 {
				buf = buf[i+1:]
				start += int64(i + 1)
			} else {
				buf = nil
				start += int64(n)
			}
		}
		// The next read starts at the line not yet read whole.
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			*from = start + int64(i) + 1
		} else if *from < 0 {
			*from = start
		}
		found, settled := scan(buf)
		putTailBuffer(bp)
		if found || off == 0 || window >= limit || prev >= 0 {
			return found, !found && !settled, true
		}
	}
}

// firstWindow is the tail a lookup reads first.
const firstWindow = 16 << 10

// tailBuffers reuses the first window's buffer between lookups in one process.
var tailBuffers = sync.Pool{New: func() any { b := make([]byte, firstWindow); return &b }}

func tailBuffer(n int64) *[]byte {
	if n <= firstWindow {
		bp := tailBuffers.Get().(*[]byte)
		*bp = (*bp)[:n]
		return bp
	}
	b := make([]byte, n)
	return &b
}

func putTailBuffer(bp *[]byte) {
	if cap(*bp) == firstWindow {
		*bp = (*bp)[:firstWindow]
		tailBuffers.Put(bp)
	}
}

// callLines are the whole lines of buf that hold needle, in file order. A
// last line without its newline may still be being written, and is left out.
// They are found by a forward search (vectorised), where walking every line
// back from the end went byte by byte through the whole window.
func callLines(buf, needle []byte) [][2]int {
	if n := len(buf); n > 0 && buf[n-1] != '\n' {
		buf = buf[:bytes.LastIndexByte(buf, '\n')+1]
	}
	if len(needle) == 0 {
		return nil
	}
	var lines [][2]int // start and end of each line holding the id
	for i := 0; i < len(buf); {
		j := bytes.Index(buf[i:], needle)
		if j < 0 {
			break
		}
		j += i
		start := bytes.LastIndexByte(buf[:j], '\n') + 1
		end := j + bytes.IndexByte(buf[j:], '\n') // buf ends with a newline
		lines = append(lines, [2]int{start, end})
		i = end + 1
	}
	return lines
}

// scanCall looks for the function_call item of callID in buf (a
// response_item line whose payload is the model's call) and returns its
// arguments, the JSON text the model sent (for a local_shell_call, its
// working_directory as the workdir argument). settled says the call's
// completion is in buf without the call: the rollout has moved past it, and
// waiting cannot bring it.
func scanCall(buf []byte, callID string) (args string, found, settled bool) {
	lines := callLines(buf, []byte(callID))
	for k := len(lines) - 1; k >= 0; k-- {
		line := buf[lines[k][0]:lines[k][1]]
		p := gjson.GetBytes(line, "payload")
		switch gjson.GetBytes(line, "type").Str {
		case "response_item":
		case "event_msg":
			if p.Get("type").Str == "item_completed" && p.Get("item.id").Str == callID ||
				p.Get("type").Str == "exec_command_end" && p.Get("call_id").Str == callID {
				settled = true
			}
			continue
		default:
			continue
		}
		if p.Get("call_id").Str != callID {
			continue
		}
		switch p.Get("type").Str {
		case "function_call":
			return p.Get("arguments").Str, true, false
		case "local_shell_call":
			// The local_shell tool's call names its folder in its action.
			raw, _ := json.Marshal(map[string]string{"workdir": p.Get("action.working_directory").Str})
			return string(raw), true, false
		case "function_call_output", "custom_tool_call_output":
			settled = true
		}
	}
	return "", false, settled
}

// scanLines looks for the call's exit code in buf, newest line first. Only
// the lines that hold the call's id are looked at (callLines).
func scanLines(buf []byte, callID string) (code *int, found, settled bool) {
	var fallback *int
	lines := callLines(buf, []byte(callID))
	for k := len(lines) - 1; k >= 0; k-- {
		line := buf[lines[k][0]:lines[k][1]]
		p := gjson.GetBytes(line, "payload")
		switch p.Get("type").Str {
		case "item_completed":
			item := p.Get("item")
			if item.Get("id").Str == callID {
				if ec := item.Get("exit_code"); ec.Type == gjson.Number {
					return loop.IntPtr(int(ec.Int())), true, true
				}
				settled = true
			}
		case "exec_command_end":
			if p.Get("call_id").Str == callID {
				if ec := p.Get("exit_code"); ec.Type == gjson.Number {
					return loop.IntPtr(int(ec.Int())), true, true
				}
			}
		case "function_call_output", "custom_tool_call_output":
			if p.Get("call_id").Str == callID {
				// The completion is in the file: a missing exit code will not
				// appear later.
				settled = true
				if n, ok := processExit(p.Get("output").String()); ok && fallback == nil {
					fallback = loop.IntPtr(n)
				}
			}
		}
	}
	if fallback != nil {
		return fallback, true, true
	}
	return nil, false, settled
}

// processExit reads "Process exited with code N" from an exec_command output.
func processExit(out string) (int, bool) {
	const marker = "Process exited with code "
	for _, line := range strings.SplitN(out, "\n", 8) {
		if rest, ok := strings.CutPrefix(line, marker); ok {
			n := 0
			digits := 0
			neg := false
			for i, r := range rest {
				if i == 0 && r == '-' {
					neg = true
					continue
				}
				if r < '0' || r > '9' {
					break
				}
				n = n*10 + int(r-'0')
				digits++
			}
			if digits == 0 {
				return 0, false
			}
			if neg {
				n = -n
			}
			return n, true
		}
	}
	return 0, false
}
