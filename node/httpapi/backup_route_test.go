package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// fakeBackups hands out a fixed payload, recording whether the key was
// asked for; started and release let a test hold one backup open.
type fakeBackups struct {
	payload          string
	withKey          chan bool
	started, release chan struct{}
	closed           chan struct{}
	err              error
}

func (f *fakeBackups) Backup(_ context.Context, withKey bool) (BackupFile, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.withKey <- withKey
	if f.started != nil {
		close(f.started)
		<-f.release
	}
	return &fakeFile{r: strings.NewReader(f.payload), size: int64(len(f.payload)), closed: f.closed}, nil
}

type fakeFile struct {
	r      *strings.Reader
	size   int64
	closed chan struct{}
}

func (f *fakeFile) WriteTo(w io.Writer) (int64, error) { return f.r.WriteTo(w) }
func (f *fakeFile) Size() int64                        { return f.size }
func (f *fakeFile) Close() error                       { close(f.closed); return nil }

func TestBackupRoute_StreamsForAdminsOnly(t *testing.T) {
	b := &fakeBackups{payload: strings.Repeat("tar!", 1000), withKey: make(chan bool, 1), closed: make(chan struct{})}
	tokens, err := auth.OpenTokens(nodetest.WriteTokensFile(t, nodetest.TokensFile), nodetest.SharedToken)
	if err != nil {
		t.Fatal(err)
	}
	ts := htStart(t, func(c *Options) { c.Auth = auth.NewAuthenticator(nodetest.SharedToken, tokens); c.Backups = b })
	if got := nodetest.Get(t, ts, "/lsnode/backup", nodetest.AgentToken); got.Status != http.StatusForbidden {
		t.Fatalf("agent token: %d", got.Status)
	}
	if got := nodetest.Get(t, ts, "/lsnode/backup", ""); got.Status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", got.Status)
	}
	got := nodetest.Get(t, ts, "/lsnode/backup", nodetest.AdminToken)
	if got.Status != http.StatusOK || got.Body != b.payload || got.Header.Get("Content-Type") != "application/x-tar" ||
		got.Header.Get("Content-Length") != strconv.Itoa(len(b.payload)) {
		t.Fatalf("admin: %d %v, %d bytes", got.Status, got.Header, len(got.Body))
	}
	<-b.closed
	if !<-b.withKey {
		t.Fatal("a backup without node_key left the key out")
	}
	b.closed = make(chan struct{})
	if got := nodetest.Get(t, ts, "/lsnode/backup?node_key=false", nodetest.SharedToken); got.Status != http.StatusOK || <-b.withKey {
		t.Fatalf("node_key=false: %d", got.Status)
	}
	if got := nodetest.Get(t, ts, "/lsnode/backup?node_key=maybe", nodetest.SharedToken); got.Status != http.StatusBadRequest ||
		!strings.Contains(got.Body, "node_key must be true or false") {
		t.Fatalf("node_key=maybe: %d %s", got.Status, got.Body)
	}
}

func TestBackupRoute_OneAtATime(t *testing.T) {
	b := &fakeBackups{payload: "x", withKey: make(chan bool, 2), started: make(chan struct{}), release: make(chan struct{}), closed: make(chan struct{})}
	ts := htStart(t, func(c *Options) { c.Backups = b })
	first := make(chan nodetest.Resp)
	go func() { first <- nodetest.Get(t, ts, "/lsnode/backup", "") }()
	<-b.started
	if got := nodetest.Get(t, ts, "/lsnode/backup", ""); got.Status != http.StatusConflict || !strings.Contains(got.Body, "running already") {
		t.Fatalf("second backup: %d %s", got.Status, got.Body)
	}
	close(b.release)
	if got := <-first; got.Status != http.StatusOK || got.Body != "x" {
		t.Fatalf("first backup: %d %q", got.Status, got.Body)
	}
}

func TestBackupRoute_Refusals(t *testing.T) {
	ts := htStart(t, nil)
	if got := nodetest.Get(t, ts, "/lsnode/backup", ""); got.Status != http.StatusNotImplemented {
		t.Fatalf("no backups: %d", got.Status)
	}
	failing := htStart(t, func(c *Options) { c.Backups = &fakeBackups{err: errors.New("disk full")} })
	if got := nodetest.Get(t, failing, "/lsnode/backup", ""); got.Status != http.StatusInternalServerError {
		t.Fatalf("failed snapshot: %d %s", got.Status, got.Body)
	}
}

func TestStatusz_SizesAndLastWrites(t *testing.T) {
	ts := htStart(t, nil)
	ts2 := htStart(t, func(c *Options) { c.Store = ts.Store(); c.Sizes = ts.Store() })
	nodetest.Append(t, ts.Store(), store.AppendInput{Body: "one"})
	lg := nodetest.JSON(t, nodetest.Get(t, ts2, "/statusz", ""))["log"].(map[string]any)
	streams, _ := lg["stream_events"].(map[string]any)
	if lg["database_bytes"].(float64) <= 0 || lg["last_write_at"] == nil || lg["last_local_write_at"] == nil || len(streams) != 1 {
		t.Fatalf("log block %v", lg)
	}
	if lg := nodetest.JSON(t, nodetest.Get(t, ts, "/statusz", ""))["log"].(map[string]any); lg["wal_bytes"] != nil {
		t.Fatalf("sizes shown without a LogSizes: %v", lg)
	}
}
