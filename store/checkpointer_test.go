package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// TestCheckpointer_CopiesWALBesideTheWriter: a few commits, far fewer WAL
// pages than the writer's own automatic checkpoint waits for, reach the
// database file through the background checkpointer.
func TestCheckpointer_CopiesWALBesideTheWriter(t *testing.T) {
	dir := t.TempDir()
	s := openReplicaAt(t, dir, repA, nil)
	dbPath := filepath.Join(dir, DBFile)
	before := fileSize(t, dbPath)
	for range 200 {
		mustAppend(t, s, note("a", "b"))
	}
	testwait.For(t, 10*time.Second, func() (bool, string) {
		size := fileSize(t, dbPath)
		return size > before, fmt.Sprintf("database file still %d bytes: the WAL was not checkpointed", size)
	})
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
