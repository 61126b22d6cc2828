package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupRestore_Refusals: the command-line refusals of backup and
// restore; a failed restore removes the dir it created. The e2e tests
// (e2e/backup_test.go) run both commands on real nodes.
func TestBackupRestore_Refusals(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"backup"}, exitUsage, "--out is required"},
		{[]string{"backup", "--data", tmp, "--addr", "http://127.0.0.1:1", "--out", "x"}, exitUsage, "not both"},
		{[]string{"backup", "--data", filepath.Join(tmp, "none"), "--out", filepath.Join(tmp, "b")}, exitFailure, "no such file"},
		{[]string{"restore", "--data", tmp}, exitUsage, "one of them"},
		{[]string{"restore", "f", "--from", "http://127.0.0.1:1", "--data", tmp}, exitUsage, "one of them"},
		{[]string{"restore", "f"}, exitUsage, "--data is required"},
		{[]string{"restore", "--from", "http://127.0.0.1:1", "--keep-identity", "--data", tmp}, exitUsage, "carries no key"},
		{[]string{"restore", filepath.Join(tmp, "missing"), "--data", filepath.Join(tmp, "new")}, exitFailure, "no such file"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "new")); !os.IsNotExist(err) {
		t.Fatalf("a failed restore left its new dir: %v", err)
	}
}
