// Package importrules keeps the layout of the repository: each Rule says
// what a set of packages must not import, call or start (goroutines), and
// the package's test (TestLayout) checks every rule against the build
// graph of the module as `go list -deps -json ./...` reports it, non-test
// files only; calls and go statements are found by parsing those files.
// A failure names the rule, the package, the offending import (and, for
// an import reached through other packages, the chain that reaches it)
// or the file and line of the offending call.
//
// # What "imports" means
//
// With Reach Direct, a package's own imports count. With Reach Through,
// so do the imports of every package it reaches, with two kinds of
// packages left out of the walk:
//
//   - the standard library: its packages are leaves. fmt imports os to
//     print and log/slog imports it through log; that is not the package
//     doing I/O, and no Go package could be checked otherwise.
//   - a rule's Boundary packages, each named with the reason it may be
//     imported although its own imports break the rule (the store, whose
//     data files are its own, for the sync core).
//
// So a rule with Reach Through and no Boundary that forbids a non-standard
// package (gRPC) means: `go list -deps` of the package does not contain
// it.
package importrules
