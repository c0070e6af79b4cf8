package harness

import "fmt"

// MaxNesting caps how deeply a hook's input may nest arrays and objects, the
// harness's payload and the JSON text of a tool's arguments alike. Real
// payloads nest at most 14 levels (the recorded ones of every harness). The
// readers of tool inputs walk each level's value again for every level above
// it, so this cap bounds their work, and with it they need no bound of their
// own that a path nested below it could hide under. 8 MiB of "[" once
// overflowed the goroutine stack of a reader that recursed once per level.
const MaxNesting = 64

// CheckNesting refuses JSON text that nests deeper than MaxNesting. It is one
// pass over the bytes, aware of strings, and allocates nothing; whether the
// text is otherwise valid JSON is the reader's to say. what names the text in
// the error ("stdin").
func CheckNesting(what string, data []byte) error {
	depth := 0
	inString, escaped := false, false
	for i, c := range data {
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
			if depth > MaxNesting {
				return fmt.Errorf("%s nests JSON more than %d levels deep (at byte %d); refusing to decode it", what, MaxNesting, i)
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
