package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/lsnode/lsnode/internal/niced"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
)

// Backups makes the consistent backups of GET /lsnode/backup
// (docs/operations.md, "Backups"): the node snapshots its log and
// describes it in the backup file format.
type Backups interface {
	// Backup takes a snapshot now, with the node's signing key when
	// withKey. The caller streams it and closes it.
	Backup(ctx context.Context, withKey bool) (BackupFile, error)
}

// BackupFile is one backup ready to stream: Size bytes from WriteTo.
type BackupFile interface {
	io.WriterTo
	Size() int64
	Close() error
}

// errBackupRunning refuses a second backup while one runs: each takes a
// copy of the log on the data dir's disk.
const errBackupRunning = "a backup of this node is running already; try again when it ends"

// handleBackup serves GET /lsnode/backup (admin): a backup of the node
// as a tar stream of known length. node_key=false leaves the signing key
// out (a seed for a new node, which mints its own). The write deadline
// moves on with every write, so a large log streams for as long as the
// client keeps reading.
func (s *Server) handleBackup(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Backups == nil {
		writeJSON(w, http.StatusNotImplemented, syncwire.ErrorAnswer("this node makes no backups"))
		return
	}
	withKey := true
	switch v := parseQuery(r.URL.RawQuery)["node_key"]; v {
	case "", "true", "1":
	case "false", "0":
		withKey = false
	default:
		writeError(w, r, s.log, invalid(fmt.Sprintf("node_key must be true or false, not %q", v)))
		return
	}
	if !s.backupBusy.CompareAndSwap(false, true) {
		writeJSON(w, http.StatusConflict, syncwire.ErrorAnswer(errBackupRunning))
		return
	}
	defer s.backupBusy.Store(false)
	b, err := s.cfg.Backups.Backup(r.Context(), withKey)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	defer b.Close()
	h := w.Header()
	h.Set("Content-Type", "application/x-tar")
	h.Set("Content-Length", strconv.FormatInt(b.Size(), 10))
	h.Set("Content-Disposition", `attachment; filename="lsnode-backup.tar"`)
	w.WriteHeader(http.StatusOK)
	start := time.Now()
	var n int64
	// Reading, hashing and sending hundreds of MiB is bulk work: it runs
	// niced, so the node's writer and other requests get a core first.
	err = niced.Run(func() error {
		var err error
		n, err = b.WriteTo(&deadlineWriter{w: w, rc: http.NewResponseController(w), step: s.cfg.WriteTimeout})
		return err
	})
	if err != nil {
		s.log.Warn("backup stream ended early", "bytes", n, "of", b.Size(), "err", err)
		return
	}
	s.log.Info("backup streamed", "bytes", n, "took", time.Since(start), "with_key", withKey)
}

// deadlineWriter pushes the connection's write deadline step ahead of
// every write.
type deadlineWriter struct {
	w    io.Writer
	rc   *http.ResponseController
	step time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if d.step > 0 {
		_ = d.rc.SetWriteDeadline(time.Now().Add(d.step))
	}
	return d.w.Write(p)
}
