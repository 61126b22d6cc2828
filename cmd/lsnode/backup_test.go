package main

import (
	"os"
	"path/filepath"
	"slices"
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

// TestBackupRestore_FailuresLeaveNoLock: a restore refused by a dir that
// holds something, a restore that fails into an existing empty dir and a
// backup of a dir that is no data dir each leave the dir exactly as it
// was, with no lock file added.
func TestBackupRestore_FailuresLeaveNoLock(t *testing.T) {
	tmp := t.TempDir()
	busy, empty, plain := filepath.Join(tmp, "busy"), filepath.Join(tmp, "empty"), filepath.Join(tmp, "plain")
	for _, d := range []string{busy, empty, plain} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{busy, plain} {
		if err := os.WriteFile(filepath.Join(d, "x"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(tmp, "bad.lsbackup")
	if err := os.WriteFile(bad, []byte("not a backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		dir  string
		want string
		left []string
	}{
		{[]string{"restore", bad, "--data", busy}, busy, "not empty", []string{"x"}},
		{[]string{"restore", bad, "--data", empty}, empty, "", nil},
		{[]string{"backup", "--data", plain, "--out", filepath.Join(tmp, "out")}, plain, "not a node's data dir", []string{"x"}},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitFailure || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, stderr, exitFailure, c.want)
		}
		entries, err := os.ReadDir(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, c.left) {
			t.Errorf("%v left %v in %s, want %v", c.args, names, c.dir, c.left)
		}
	}
}
