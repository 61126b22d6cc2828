package importrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"testing"
)

// TestLayout checks every rule against the module's build graph.
func TestLayout(t *testing.T) {
	g := moduleGraph(t)
	for _, r := range Rules {
		for _, err := range r.Check(g) {
			t.Error(err)
		}
	}
}

// moduleGraph is the build graph of every package of the module, from
// `go list -deps -json ./...` run at the module root (non-test files).
func moduleGraph(t *testing.T) Graph {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the build graph: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "-json", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g := Graph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		g[p.ImportPath] = &p
	}
	if g[module+"/sync"] == nil {
		t.Fatalf("go list at ../.. did not list %s/sync: not the module root?", module)
	}
	return g
}
