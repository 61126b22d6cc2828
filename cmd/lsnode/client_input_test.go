package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Content that is not UTF-8 (a binary file, Latin-1 text) is refused
// before anything is sent: JSON would carry it with each bad byte
// replaced, so the node would store something other than the file.
func TestClient_RefusesNonUTF8Input(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	addr := "--addr=" + n.URL()
	file := filepath.Join(t.TempDir(), "latin1.txt")
	if err := os.WriteFile(file, []byte("caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"artifact", "put", addr, "--kind=file", "--created-by=alice", "--file=" + file},
		{"events", "append", addr, "--type=note", "--stream=s", "--room=r", "--from=alice", "--body-file=" + file},
	} {
		code, out, errOut := cli(t, args...)
		if code != exitFailure || out != "" || !strings.Contains(errOut, file+" is not UTF-8 text") {
			t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 1 naming the file", args[0], args[1], code, out, errOut)
		}
	}
	if got := n.Store().VersionVector()[n.Store().ReplicaID()]; got != 0 {
		t.Fatalf("the node stored %d events", got)
	}
}

// Flags may follow the positional argument, as in `lsnode artifact get
// ID --out FILE`; "--" still ends the flags.
func TestClient_FlagsAfterArguments(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	out := mustCLI(t, "artifact", "put", "--addr="+n.URL(), "--kind=note", "--created-by=alice", "--content=hello")
	id := strings.Fields(strings.Split(out, "\n")[0])[1]
	dst := filepath.Join(t.TempDir(), "out")
	mustCLI(t, "artifact", "get", id, "--addr="+n.URL(), "--out", dst)
	if b, err := os.ReadFile(dst); err != nil || string(b) != "hello" {
		t.Fatalf("get ID --out FILE wrote %q, %v", b, err)
	}
	if code, _, errOut := cli(t, "artifact", "get", "--addr="+n.URL(), "--", "--json"); code != exitFailure ||
		!strings.Contains(errOut, "artifact '--json' not found") {
		t.Fatalf("after --: exit %d, stderr %q", code, errOut)
	}
}
