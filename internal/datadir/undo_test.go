package datadir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUndo_LeavesTheDirAsItWas: after Acquire and files added, Undo
// removes a dir it created, empties a dir that was empty, removes only a
// lock file it created from a dir that held something, and keeps a lock
// file that was there before. Each dir can be locked again after.
func TestUndo_LeavesTheDirAsItWas(t *testing.T) {
	cases := []struct {
		name  string
		setup func(dir string) // nil: the dir does not exist
		want  []string         // entries after Undo; nil: the dir is gone
	}{
		{"created", nil, nil},
		{"empty", func(string) {}, []string{}},
		{"held a file", func(dir string) { write(t, dir, "x") }, []string{"x"}},
		{"held a lock file", func(dir string) { write(t, dir, LockFile) }, []string{LockFile}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if tc.setup != nil {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				tc.setup(dir)
			}
			l, err := Acquire(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.setup == nil || len(tc.want) == 0 {
				write(t, dir, "node.key") // what a failed command created
			}
			if err := l.Undo(); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if tc.want == nil {
				if !os.IsNotExist(err) {
					t.Fatalf("the dir Acquire created is still there (%v)", err)
				}
				return
			}
			got := []string{}
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("after Undo the dir holds %v, want %v", got, tc.want)
			}
			again, err := Acquire(dir)
			if err != nil {
				t.Fatalf("lock after Undo: %v", err)
			}
			again.Release()
		})
	}
}

func write(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
