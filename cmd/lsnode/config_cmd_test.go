package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCheck_Golden: config check prints one line for a good file
// and exits 0; for a bad one it prints every problem and exits 1. It
// reads no variable: LSNODE_HTTP here does not make public.yaml valid
// nor mesh.yaml invalid. testdata/config_check.golden holds the output.
func TestConfigCheck_Golden(t *testing.T) {
	clearEnv(t)
	t.Setenv("LSNODE_HTTP", "127.0.0.1:1")
	t.Setenv("LSNODE_TOKEN", "from-env")
	var all strings.Builder
	for _, name := range []string{"mesh.yaml", "empty.yaml", "mistakes.yaml", "public.yaml", "missing.yaml"} {
		path := filepath.Join("testdata", "config", name)
		code, stdout, stderr := runCLI(t, "config", "check", path)
		want := exitOK
		if name == "mistakes.yaml" || name == "public.yaml" || name == "missing.yaml" {
			want = exitFailure
		}
		if code != want {
			t.Errorf("config check %s: exit %d, want %d", name, code, want)
		}
		if (code == exitOK) != (stderr == "") || (code == exitOK) == (stdout == "") || strings.Count(stdout, "\n") > 1 {
			t.Errorf("config check %s: stdout %q stderr %q; want one line on stdout, or the error on stderr", name, stdout, stderr)
		}
		fmt.Fprintf(&all, "$ lsnode config check %s\n%s%sexit %d\n\n", path, stdout, stderr, code)
	}
	for _, args := range [][]string{{"config", "check"}, {"config", "check", "a.yaml", "b.yaml"}} {
		if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "give one FILE") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	checkGolden(t, "config_check.golden", []byte(all.String()))
}
