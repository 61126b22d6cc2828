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
