package docscheck

import (
	"os"
	"strings"
	"testing"
)

// TestBenchmarksDoc: every `go test` command of docs/benchmarks.md runs
// something in each package it names.
func TestBenchmarksDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/benchmarks.md")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := Commands(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	// The document holds more than twenty such commands; finding few
	// means the reading broke, not that the document is right.
	if len(cmds) < 20 {
		t.Fatalf("found %d go test commands in docs/benchmarks.md, want at least 20", len(cmds))
	}
	problems, err := Check("../..", cmds)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("docs/benchmarks.md:\n%s", strings.Join(problems, "\n"))
	}
}
