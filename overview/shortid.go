package overview

import "sort"

// ShortIDs names each session by the shortest tail of its id (at least 8
// characters) that no other session shares: Codex ids are UUIDv7, whose start is
// a timestamp shared by sessions begun close together, while the tail is random.
func ShortIDs(ids []string) map[string]string {
	const minLen = 8
	// With the ids sorted by their reversed runes, the longest tail an id shares
	// with any other is the one it shares with a neighbour.
	rev := make([][]rune, len(ids))
	for i, id := range ids {
		r := []rune(id)
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		rev[i] = r
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return string(rev[order[a]]) < string(rev[order[b]]) })
	common := func(a, b []rune) int {
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n
	}
	out := make(map[string]string, len(ids))
	for pos, i := range order {
		shared := 0
		if pos > 0 {
			shared = max(shared, common(rev[i], rev[order[pos-1]]))
		}
		if pos+1 < len(order) {
			shared = max(shared, common(rev[i], rev[order[pos+1]]))
		}
		r := []rune(ids[i])
		k := max(minLen, shared+1)
		if k+4 >= len(r) {
			out[ids[i]] = ids[i]
			continue
		}
		out[ids[i]] = "…" + string(r[len(r)-k:])
	}
	return out
}
