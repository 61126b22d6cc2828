// Package docscheck keeps the commands of docs/benchmarks.md runnable: it
// finds every `go test` command in the document's code spans and checks
// that each package it names holds a function its -bench (or -run)
// pattern selects, so that a benchmark moved to another package cannot
// leave a documented command that quietly runs nothing.
//
// A command is read as a shell would split it (single and double quotes),
// after undoing the `\|` a Markdown table needs for a pipe. A pattern is
// split at its unbracketed slashes as the testing package splits it, and
// only its first part, which selects top-level functions, is checked; the
// sub-benchmark and subtest parts are not. The functions of a package are
// read from its _test.go files with go/parser, whatever their build tags,
// so nothing is built.
package docscheck
