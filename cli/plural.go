package cli

import "strconv"

// count is "1 session" or "2 sessions": n with noun, plural unless n is 1
// (the nouns here all take an s).
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
