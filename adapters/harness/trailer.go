package harness

import "strings"

// Trailer reads the block of "Key: value" lines a harness's shell tool
// appends after a command's output, from the end of lines: keys are the
// block's keys in the order the harness writes them, each at most once.
// Read from the end and held to that order, the block is the harness's own:
// lines the command printed in the same shape end up above it, in body.
// values maps each key found to its value; body is the lines before the block.
func Trailer(lines []string, keys ...string) (values map[string]string, body []string) {
	values = map[string]string{}
	next := len(keys) // keys[:next] may still come, reading upwards
	i := len(lines)
	for ; i > 0; i-- {
		line := strings.TrimRight(lines[i-1], "\r")
		k := -1
		for j := 0; j < next; j++ {
			if strings.HasPrefix(line, keys[j]+": ") {
				k = j
				break
			}
		}
		if k < 0 {
			break
		}
		values[keys[k]] = strings.TrimSpace(strings.TrimPrefix(line, keys[k]+": "))
		next = k
	}
	return values, lines[:i]
}
