// Package suggest finds the closest of a set of names to a mistyped one: the
// "did you mean" of unknown commands, flags, log filters and loop names.
package suggest

// Distance is the Levenshtein edit distance between a and b (by runes), with
// an adjacent swap counting as one edit ("stauts" is one edit from "status").
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// Closest is the candidate nearest to name, "" when none is near enough to be
// a plausible typo (at most a third of the name's length in edits, and at
// least one), or when name is itself a candidate. Ties go to the earlier
// candidate.
func Closest(name string, candidates []string) string {
	limit := max(1, len([]rune(name))/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name {
			return ""
		}
		if d := Distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Hint is " (did you mean X?)" for the closest candidate, "" when there is none.
func Hint(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}
