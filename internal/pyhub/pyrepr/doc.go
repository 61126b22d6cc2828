// Package pyrepr holds the Python semantics that client-visible behaviour
// depends on: repr() of a string, so that error texts quoting a client's
// input match the Python hub's byte for byte, and bool() of a decoded JSON
// value, where the hub tests a field's truth, and where Python's UTF-8
// codec cuts an ill-formed byte sequence (its decode errors, and
// errors="replace"). It is a leaf package shared by hlc,
// internal/pyhub/rules, store, node and sync.
package pyrepr
