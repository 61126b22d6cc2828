// Package testwait is how tests wait for a state they cannot be told
// about: poll a condition until it holds, within a deadline. For fails
// the test with the condition's last account of what it saw, Until
// names what it waited for, and Poll reports instead of failing (for a
// checker that gathers findings, or a measurement that times the wait).
//
// Polls begin 1 ms apart and back off to 50 ms, so a state reached at
// once costs a millisecond and a slow one costs no busy loop. Every
// fixes the interval where the wait itself is timed (a benchmark's
// catch-up, a convergence measurement).
//
// A test that waits for "nothing happens" does not poll: it runs in a
// testing/synctest bubble, or on an injected clock, and asserts once
// everything is idle.
//
// It is imported by tests only (unit tests and the e2e suite).
package testwait
