package hook

import "fmt"

// MaxNesting caps how deeply the hook's stdin may nest arrays and objects. Real
// payloads nest a dozen levels; some JSON readers the adapters use recurse once
// per level, and 8 MiB of "[" overflowed the goroutine stack (a fatal error,
// not a recoverable panic) before this check existed.
const MaxNesting = 1000

// checkNesting refuses input that nests deeper than MaxNesting. It is one pass
// over the bytes, aware of strings, and allocates nothing; whether the input is
// otherwise valid JSON is the adapter's to say.
func checkNesting(data []byte) error {
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
				return fmt.Errorf("stdin nests JSON more than %d levels deep (at byte %d); refusing to decode it", MaxNesting, i)
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
