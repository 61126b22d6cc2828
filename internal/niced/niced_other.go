//go:build !linux

package niced

// Run runs fn: this system has no priority of a thread to lower.
func Run(fn func() error) error { return fn() }
