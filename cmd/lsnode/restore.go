package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/lsnode/lsnode/internal/datadir"
	"github.com/lsnode/lsnode/node"
)

// runRestore restores a backup FILE, or seeds a new node from a running
// node's snapshot (--from URL), into a new or empty data dir, whose lock
// it holds meanwhile. A failed restore leaves the dir as it was: a dir it
// created is removed, and the lock file goes with the rest.
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("restore", stdout, stderr)
	cf := addClientFlagsAt(fs.FlagSet, "from", "",
		"seed the node from a running node of the mesh (its base URL, admin token): its snapshot without its key, then anti-entropy from the snapshot's vector; instead of FILE")
	data := fs.String("data", "", "the data dir to restore into: new or empty (required)")
	keep := fs.Bool("keep-identity", false,
		"take the backup's replica id and signing key instead of new ones; the node then takes no local write until it has pulled its own origin back from its peers")
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	from := *cf.addr
	switch {
	case *data == "":
		return usageErrorf("--data is required")
	case fs.NArg() > 1:
		return usageErrorf("give one backup FILE")
	case (fs.NArg() == 1) == (from != ""):
		return usageErrorf("give a backup FILE or --from URL (a running node of the mesh), one of them")
	case *keep && from != "":
		return usageErrorf("--keep-identity restores a node from its own backup FILE; a seed from --from carries no key")
	}
	source, open := from, func() (io.ReadCloser, error) { return fetchBackup(ctx, cf, false) }
	if fs.NArg() == 1 {
		source = fs.Arg(0)
		open = func() (io.ReadCloser, error) { return os.Open(source) }
	}
	lock, err := datadir.Acquire(*data)
	if err != nil {
		return err
	}
	start := time.Now()
	rep, n, err := restoreFrom(ctx, open, lock.Dir(), *keep)
	if err != nil {
		_ = lock.Undo() // the dir as it was: removed if created, the lock file gone if new
		return err
	}
	lock.Release()
	if *cf.asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"dir": lock.Dir(), "from": source, "report": rep, "bytes": n,
			"seconds": time.Since(start).Seconds()})
	}
	return printRestore(stdout, lock.Dir(), source, rep, n, time.Since(start))
}

// restoreFrom restores the stream open gives into dir and counts its
// bytes.
func restoreFrom(ctx context.Context, open func() (io.ReadCloser, error), dir string, keep bool) (node.RestoreReport, int64, error) {
	r, err := open()
	if err != nil {
		return node.RestoreReport{}, 0, err
	}
	defer r.Close()
	cr := &countingReader{r: r}
	rep, err := node.Restore(ctx, cr, dir, node.RestoreOptions{KeepIdentity: keep})
	return rep, cr.n, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func printRestore(w io.Writer, dir, source string, rep node.RestoreReport, n int64, took time.Duration) error {
	identity := rep.ReplicaID + " (new; the backup's " + rep.Manifest.ReplicaID + " is a remote origin now)"
	if rep.KeptIdentity {
		identity = rep.ReplicaID + " (kept; local writes wait until its origin is pulled back from peers)"
	}
	rows := [][2]string{
		{"restored", dir},
		{"from", source},
		{"taken at", rep.Manifest.CreatedAt},
		{"events", strconv.FormatInt(rep.Events, 10)},
		{"replica", identity},
		{"node key", rep.KeyFingerprint},
		{"read", fmt.Sprintf("%.1f MiB in %s", float64(n)/(1<<20), took.Round(time.Millisecond))},
	}
	if err := printKV(w, rows); err != nil {
		return err
	}
	return printVector(w, rep.VersionVector)
}
