package dsl

import (
	"fmt"
	"regexp"
	"sync"
)

// Pattern is a regular expression of the DSL (command_match, path_match, …).
// A pattern from Parse is compiled there, so a bad one is a load error; one from
// ParseTrusted compiles on its first match, because a hook process usually
// matches only the few rules of one event.
type Pattern struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// compilePattern compiles src now.
func compilePattern(src string) (*Pattern, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	p := &Pattern{src: src, re: re}
	p.once.Do(func() {})
	return p, nil
}

// lazyPattern compiles src on first use; src has compiled before (it comes from
// content that passed Parse).
func lazyPattern(src string) *Pattern { return &Pattern{src: src} }

// MustPattern compiles src or panics, for literals in tests and examples.
func MustPattern(src string) *Pattern {
	p, err := compilePattern(src)
	if err != nil {
		panic(err)
	}
	return p
}

// Regexp is the compiled expression.
func (p *Pattern) Regexp() *regexp.Regexp {
	p.once.Do(func() {
		re, err := regexp.Compile(p.src)
		if err != nil {
			// Only content that compiled under Parse is parsed lazily, so this
			// is a broken invariant, not bad input; the hook turns a panic into
			// an answer per fail_closed.
			panic(fmt.Sprintf("dsl: pattern %q of a validated loop does not compile: %v", p.src, err))
		}
		p.re = re
	})
	return p.re
}

// MatchString reports whether s contains a match of the pattern.
func (p *Pattern) MatchString(s string) bool { return p.Regexp().MatchString(s) }

// String is the pattern as written.
func (p *Pattern) String() string { return p.src }

// MarshalText writes the pattern as written, so a Spec prints and compares by
// its patterns' sources.
func (p *Pattern) MarshalText() ([]byte, error) { return []byte(p.src), nil }
