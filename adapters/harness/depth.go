package harness

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// MaxNesting caps how deeply a tool's input may nest arrays and objects,
// the JSON text of Copilot CLI's arguments included. The readers of tool
// inputs walk each level's value again for every level above it, so this
// cap bounds their work, and with it they need no bound of their own that a
// path nested below it could hide under. Real tool inputs nest a few levels.
const MaxNesting = 64

// MaxStdinNesting caps how deeply a hook's whole stdin may nest: a reader
// that recursed once per level overflowed its goroutine stack on 8 MiB of
// "[". What a tool returns (a PostToolUse's tool_response) may nest deeper
// than its input, and is not walked.
const MaxStdinNesting = 1000

// CheckNesting refuses JSON text that nests deeper than max. It is one pass
// over the bytes, aware of strings, and allocates nothing; whether the text
// is otherwise valid JSON is the reader's to say. what names the text in
// the error ("stdin", "$.tool_input").
func CheckNesting[T string | []byte](what string, data T, max int) error {
	depth := 0
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > max {
				return fmt.Errorf("%s nests JSON more than %d levels deep (at byte %d); refusing to decode it", what, max, i)
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// CheckToolInput refuses a tool's input nested deeper than MaxNesting, as a
// ShapeError: the agent writes it, so a call it made unreadable is refused.
// path names it in the error ("$.tool_input").
func CheckToolInput(path string, input gjson.Result) error {
	if err := CheckNesting(path, input.Raw, MaxNesting); err != nil {
		return &ShapeError{Err: err}
	}
	return nil
}
