//go:build !linux

package store

// runNiced runs fn: this system has no priority of a thread to lower.
func runNiced(fn func() error) error { return fn() }
