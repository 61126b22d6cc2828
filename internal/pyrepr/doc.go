// Package pyrepr renders strings as Python's repr() does, so that error
// texts quoting a client's input match the Python hub's byte for byte. It
// is a leaf package shared by hlc and store/rules.
package pyrepr
