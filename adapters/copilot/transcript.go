package copilot

import (
	"bytes"
	"io"
	"os"
	"time"

	"github.com/hook-loop/hook-loop/project/regfile"
	"github.com/tidwall/gjson"
)

// transcriptTail is how much of the session's events.jsonl is read: the
// agent's last message is among the last few lines when agentStop fires.
const transcriptTail = 256 << 10

// TranscriptWait bounds how long an agentStop hook waits for Copilot CLI to
// write its own start into the transcript (well inside the 30 s hook timeout).
const TranscriptWait = 3 * time.Second

// lastAssistantMessage is the text of the agent's last message before the
// agentStop hook whose payload timestamp is stamp, from Copilot CLI's session
// transcript (transcriptPath: session-state/<id>/events.jsonl). agentStop
// carries no message of its own, and Copilot writes the transcript a little
// behind (measured: the message was not yet in the file when the hook
// started), so the file is read until the hook's own hook.start line is in
// it, within wait; the message is the last assistant.message with text
// before that line. "" when it cannot be known.
func lastAssistantMessage(path string, stamp int64, wait time.Duration) string {
	if path == "" || stamp == 0 {
		return ""
	}
	deadline := time.Now().Add(wait)
	pause := 10 * time.Millisecond
	for {
		msg, found, retry := scanTranscript(path, stamp)
		if found || !retry || !time.Now().Add(pause).Before(deadline) {
			return msg
		}
		time.Sleep(pause)
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// scanTranscript reads the transcript's tail once, from the end. found: the
// hook's hook.start line is there (msg is then the answer); retry is false
// when waiting cannot help (no such regular file).
func scanTranscript(path string, stamp int64) (msg string, found, retry bool) {
	// Not waiting on the open, and only a regular file (regfile): a path
	// turned into a FIFO must not hold the hook.
	f, fi, err := regfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	off := max(fi.Size()-transcriptTail, 0)
	buf := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return "", false, true
	}
	buf = buf[:n]
	if off > 0 {
		// The window cuts the first line; it cannot be parsed.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	for len(buf) > 0 {
		line := buf
		if i := bytes.LastIndexByte(bytes.TrimRight(buf, "\n"), '\n'); i >= 0 {
			line, buf = buf[i+1:], buf[:i]
		} else {
			buf = nil
		}
		switch {
		case !found && bytes.Contains(line, []byte(`"hook.start"`)):
			e := gjson.ParseBytes(line)
			found = e.Get("type").Str == "hook.start" && e.Get("data.hookType").Str == EventAgentStop &&
				e.Get("data.input.timestamp").Int() == stamp
		case found && bytes.Contains(line, []byte(`"assistant.message"`)):
			if e := gjson.ParseBytes(line); e.Get("type").Str == "assistant.message" {
				if c := e.Get("data.content"); c.Type == gjson.String && c.Str != "" {
					return c.Str, true, false
				}
			}
		}
	}
	return "", found, true
}
