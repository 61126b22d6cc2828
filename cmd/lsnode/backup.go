package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/lsnode/lsnode/internal/backupfile"
	"github.com/lsnode/lsnode/internal/datadir"
	"github.com/lsnode/lsnode/internal/niced"
	"github.com/lsnode/lsnode/internal/writeback"
	"github.com/lsnode/lsnode/node"
)

// backupAnswerTimeout bounds the wait for a node to start sending a
// backup: it snapshots its log first (seconds per GiB).
var backupAnswerTimeout = 30 * time.Minute

// runBackup writes a backup of a running node (--addr, GET /lsnode/backup)
// or of a stopped node's data dir (--data, whose lock it takes, so a
// running node's dir is refused) to --out.
func runBackup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backup", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	data := fs.String("data", "", "back up the data dir of a stopped node instead of a running one (--addr)")
	out := fs.String("out", "", "file to write the backup to, which must not exist; '-' writes to stdout (required)")
	noKey := fs.Bool("no-key", false, "leave the node's signing key out of the backup (restore --keep-identity then cannot use it)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	switch {
	case *out == "":
		return usageErrorf("--out is required")
	case *data != "" && flagGiven(fs.FlagSet, "addr"):
		return usageErrorf("give --addr (a running node) or --data (a stopped node's dir), not both")
	}
	start := time.Now()
	var m backupfile.Manifest
	var n int64
	// Hashing and writing the backup is bulk work, often done on the
	// node's own machine: it runs niced, so the node gets a core first.
	err := niced.Run(func() error {
		return writeOut(*out, stdout, func(w io.Writer) error {
			var err error
			if *data != "" {
				m, n, err = backupDataDir(ctx, *data, !*noKey, w)
			} else {
				m, n, err = backupNode(ctx, cf, !*noKey, w)
			}
			return err
		})
	})
	if err != nil {
		return err
	}
	report := stdout
	if *out == "-" {
		report = stderr
	}
	if *cf.asJSON {
		return json.NewEncoder(report).Encode(map[string]any{"manifest": m, "bytes": n, "seconds": time.Since(start).Seconds()})
	}
	return printBackup(report, *out, m, n, time.Since(start))
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// writeOut runs write on path, created anew ("-": stdout). The file
// appears under its name only once it is complete and synced. It is
// handed to the disk a MiB at a time (internal/writeback), so a backup
// written on the node's own machine leaves little dirty for the node's
// checkpoints to wait behind.
func writeOut(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists already; give a new file", path)
	}
	part := path + ".partial"
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	wb := writeback.New(f, writeback.Chunk)
	err = write(wb)
	if err == nil {
		err = wb.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(part, path)
	}
	if err != nil {
		_ = os.Remove(part)
	}
	return err
}

// backupDataDir backs up a stopped node's dir, holding its lock.
func backupDataDir(ctx context.Context, dir string, withKey bool, w io.Writer) (backupfile.Manifest, int64, error) {
	if _, err := os.Stat(dir); err != nil {
		return backupfile.Manifest{}, 0, err
	}
	lock, err := datadir.Acquire(dir)
	if err != nil {
		return backupfile.Manifest{}, 0, err
	}
	defer lock.Undo() // a backup adds nothing to the dir, the lock file included
	b, err := node.BackupDataDir(ctx, dir, withKey, version)
	if err != nil {
		return backupfile.Manifest{}, 0, err
	}
	defer b.Close()
	n, err := b.WriteTo(w)
	return b.Manifest(), n, err
}

// backupNode fetches a running node's backup and verifies it while it
// writes it to w.
func backupNode(ctx context.Context, cf *clientFlags, withKey bool, w io.Writer) (backupfile.Manifest, int64, error) {
	body, err := fetchBackup(ctx, cf, withKey)
	if err != nil {
		return backupfile.Manifest{}, 0, err
	}
	defer body.Close()
	cw := &countingWriter{w: w}
	m, err := backupfile.Verify(io.TeeReader(body, cw))
	if err == nil {
		_, err = io.Copy(cw, body) // the end of the archive
	}
	return m, cw.n, err
}

// fetchBackup opens GET /lsnode/backup of the node of cf; the caller
// closes the body.
func fetchBackup(ctx context.Context, cf *clientFlags, withKey bool) (io.ReadCloser, error) {
	c, err := cf.client()
	if err != nil {
		return nil, err
	}
	if tr, ok := c.http.Transport.(*http.Transport); ok {
		tr.ResponseHeaderTimeout = backupAnswerTimeout
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/lsnode/backup?node_key="+strconv.FormatBool(withKey), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, refusal(resp.StatusCode, msg)
	}
	return resp.Body, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func printBackup(w io.Writer, out string, m backupfile.Manifest, n int64, took time.Duration) error {
	if out != "-" {
		if abs, err := filepath.Abs(out); err == nil {
			out = abs
		}
	}
	rows := [][2]string{
		{"backup", out},
		{"replica", m.ReplicaID},
		{"taken at", m.CreatedAt},
		{"events", strconv.FormatInt(m.Events, 10)},
		{"artifacts", strconv.FormatInt(m.Artifacts, 10)},
		{"node key", strconv.FormatBool(m.HasKey())},
		{"database sha256", m.Files[0].SHA256},
		{"size", fmt.Sprintf("%.1f MiB in %s", float64(n)/(1<<20), took.Round(time.Millisecond))},
	}
	if err := printKV(w, rows); err != nil {
		return err
	}
	return printVector(w, m.VersionVector)
}

// printVector lists a version vector, one origin a row.
func printVector(w io.Writer, vv map[string]int64) error {
	origins := make([]string, 0, len(vv))
	for o := range vv {
		origins = append(origins, o)
	}
	sort.Strings(origins)
	fmt.Fprintln(w)
	var t table
	t.row("ORIGIN", "TOP")
	for _, o := range origins {
		t.row(o, strconv.FormatInt(vv[o], 10))
	}
	return t.write(w)
}
