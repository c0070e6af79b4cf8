//go:build race

package postgres

// raceEnabled: the race detector multiplies memory use.
const raceEnabled = true
