// Package pyrepr holds the Python semantics that client-visible behaviour
// depends on: repr() of a string, so that error texts quoting a client's
// input match the Python hub's byte for byte, and bool() of a decoded JSON
// value, where the hub tests a field's truth. It is a leaf package shared
// by hlc, store/rules, node and the fake hub of the sync tests.
package pyrepr
