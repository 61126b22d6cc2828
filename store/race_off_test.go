//go:build !race

package store

// raceDetector reports a test binary built with -race.
const raceDetector = false
