package harness

import "fmt"

// A Table maps names to names (native events or tools to canonical ones). It
// is a static slice, not a map: every hook process links every adapter, and a
// package-level map is built at start-up while a slice of constants is not.
type Table [][2]string

// Lookup returns the name mapped from name.
func (t Table) Lookup(name string) (string, bool) {
	for _, e := range t {
		if e[0] == name {
			return e[1], true
		}
	}
	return "", false
}

// Check reports a name listed twice, which a map literal would not compile;
// each adapter's tests call it on its tables.
func (t Table) Check() error {
	for i, e := range t {
		for _, f := range t[:i] {
			if f[0] == e[0] {
				return fmt.Errorf("%q is listed twice", e[0])
			}
		}
	}
	return nil
}
