package hubpull

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
)

// fuzzPullToken is the peer's token; no text the puller produces may
// hold it.
const fuzzPullToken = "tok-7f3c9e1d"

const (
	fuzzSelf   = "rep_000000000000000000000000000000aa"
	fuzzOrigin = "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// fuzzAnswers serves one fuzzed body per /sync/* route, with the status
// of failing (0: all 200; 1..3: that route answers 500), and counts the
// requests of a round.
type fuzzAnswers struct {
	vector, ops, artifact []byte
	failing               uint8
	mu                    sync.Mutex
	requests              int
}

func (a *fuzzAnswers) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	a.requests++
	a.mu.Unlock()
	if req.Header.Get("Authorization") != "Bearer "+fuzzPullToken {
		return nil, fmt.Errorf("request without the peer's token")
	}
	var body []byte
	route := uint8(0)
	switch req.URL.Path {
	case "/sync/version_vector":
		body, route = a.vector, 1
	case "/sync/ops":
		body, route = a.ops, 2
	case "/sync/artifact":
		body, route = a.artifact, 3
	default:
		return nil, fmt.Errorf("unexpected path %s", req.URL.Path)
	}
	code := http.StatusOK
	if route == a.failing {
		code = http.StatusInternalServerError
	}
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Header: http.Header{},
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
}

// fuzzLog is an in-memory Log that checks what the puller hands it:
// every batch's ops are of one foreign origin, chained by PrevSeq from
// the local top, and the artifacts it names were offered first. It
// "applies" an op whose PrevSeq is the top.
type fuzzLog struct {
	t    *testing.T
	vv   map[string]int64
	arts map[string]bool
}

func (l *fuzzLog) ReplicaID() string { return fuzzSelf }

func (l *fuzzLog) VersionVector() map[string]int64 {
	out := make(map[string]int64, len(l.vv))
	for o, n := range l.vv {
		out[o] = n
	}
	return out
}

func (l *fuzzLog) MissingArtifacts(_ context.Context, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if !l.arts[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

func (l *fuzzLog) ApplyBatch(_ context.Context, b store.Batch) (store.ApplyResult, error) {
	for _, a := range b.Artifacts {
		l.arts[a.ID] = true
	}
	var res store.ApplyResult
	if len(b.Ops) == 0 {
		return res, nil
	}
	origin := b.Ops[0].Event.OriginReplica
	if origin == fuzzSelf || !store.ValidReplicaID(origin) {
		l.t.Fatalf("ops of origin %q handed to the store", origin)
	}
	prev := l.vv[origin]
	for i, op := range b.Ops {
		if op.Event.OriginReplica != origin {
			l.t.Fatalf("op %d of a batch of %s is of %q", i, origin, op.Event.OriginReplica)
		}
		if op.PrevSeq != prev {
			l.t.Fatalf("op %d of %s chained to %d, want %d", i, origin, op.PrevSeq, prev)
		}
		prev = max(prev, op.Event.OriginSeq)
		if op.PrevSeq == l.vv[origin] && op.Event.OriginSeq > op.PrevSeq {
			l.vv[origin] = op.Event.OriginSeq
			res.Applied++
		} else {
			res.Quarantined++
		}
	}
	return res, nil
}

// fuzzPullEvent is an op of fuzzOrigin as a /sync/ops event dict.
func fuzzPullEvent(seq int, arts string) string {
	return fmt.Sprintf(`{"id":"evt_%d","origin_replica":"%s","origin_seq":%d,"hlc":"1796040000000-000000-%s",`+
		`"type":"t","stream":"s","room":"r","from_agent":"a","artifact_ids":[%s],"created_at":"2026-11-30T12:00:00Z"}`,
		seq, fuzzOrigin, seq, fuzzOrigin, arts)
}

// fuzzPullSeed is a healthy peer's answers: fuzzOrigin up to 3, three
// ops, the second naming art_1, and art_1.
func fuzzPullSeed() (vector, ops, artifact string) {
	vector = `{"replica_id":"rep_cccccccccccccccccccccccccccccccc","version_vector":{"` + fuzzOrigin + `":3,"` + fuzzSelf + `":9},"profile":null,"profiles":{}}`
	ops = `{"origin":"` + fuzzOrigin + `","events":[` + fuzzPullEvent(1, "") + `,` + fuzzPullEvent(2, `"art_1"`) + `,` + fuzzPullEvent(3, "") + `],"count":3}`
	artifact = `{"artifact":{"id":"art_1","kind":"note","sha256":"x","size_bytes":1,"content":"a","created_by":"a","created_at":"2026-11-30T12:00:00Z","origin_replica":null,"metadata":{}}}`
	return vector, ops, artifact
}

// FuzzPullAnswers runs one pull round against a peer whose /sync/*
// answers are fuzzed: the round ends within a bounded number of requests,
// hands the store only ops of the origin it asked for chained from the
// local top (never this node's own origin), and no result, error or log
// line holds the peer's token, even when the peer echoes it back.
func FuzzPullAnswers(f *testing.F) {
	vector, ops, art := fuzzPullSeed()
	event := fuzzPullEvent
	for _, s := range []struct {
		vector, ops, artifact string
		failing               uint8
	}{
		{vector, ops, art, 0},
		{vector, ops, art, 3},
		{vector, ops, `{"error":"bad token ` + fuzzPullToken + `"}`, 3},
		{vector, `{"origin":"x","events":[` + event(5, "") + `,{"origin_replica":"rep_dddddddddddd"}]}`, art, 0},
		{vector, `{"events":[1,"x",null]}`, `{"artifact":{"id":"art_2"}}`, 0},
		{vector, `{"events":[]}`, `{}`, 0},
		{`{"version_vector":{"` + fuzzOrigin + `":9223372036854775807}}`, ops, art, 0},
		{`{"version_vector":{"nope":1,"` + fuzzOrigin + `":1.5}}`, ops, art, 0},
		{`{"version_vector":{"` + fuzzPullToken + `":"x"}}`, ops, art, 0},
		{`{"version_vector":[]} trailing`, ops, art, 0},
		{`{"error":"` + fuzzPullToken + `"}`, ops, art, 1},
		{strings.Repeat(" ", 2000) + vector, ops, art, 0},
		{vector, ops, art, 2},
	} {
		f.Add([]byte(s.vector), []byte(s.ops), []byte(s.artifact), s.failing)
	}
	peersFile := filepath.Join(f.TempDir(), PeersFileName)
	peers := `{"peers":[{"name":"hub","url":"http://hub.invalid:8765","token":"` + fuzzPullToken + `"}]}`
	if err := os.WriteFile(peersFile, []byte(peers), 0o600); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, vector, ops, artifact []byte, failing uint8) {
		fuzzPullRound(t, peersFile, vector, ops, artifact, failing)
	})
}

// fuzzPullRound runs one round over the answers and checks it.
func fuzzPullRound(t *testing.T, peersFile string, vector, ops, artifact []byte, failing uint8) (PeerResult, *fuzzLog) {
	answers := &fuzzAnswers{vector: vector, ops: ops, artifact: artifact, failing: failing % 4}
	var logs bytes.Buffer
	cfg := DefaultConfig(peersFile)
	cfg.Interval, cfg.Timeout, cfg.MaxResponseBytes = 0, 5*time.Second, 1<<10
	cfg.Transport = answers
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	log := &fuzzLog{t: t, vv: map[string]int64{}, arts: map[string]bool{}}
	p, err := NewPuller(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	results := p.SyncOnce(context.Background())
	if len(results) != 1 {
		t.Fatalf("%d results for one peer", len(results))
	}
	// One vector, then per origin pages (halving the limit down to one
	// on oversize answers) and one artifact request per named artifact.
	if answers.requests > 64 {
		t.Fatalf("one round made %d requests", answers.requests)
	}
	checkNoToken(t, "logs", logs.String())
	checkNoToken(t, "status", fmt.Sprintf("%+v %+v", p.Status(), p.ConfigError()))
	r := results[0]
	checkNoToken(t, "result", fmt.Sprintf("%+v %v %v", r, r.Err, r.OriginErrs))
	if r.Err == nil && failing%4 == 1 {
		t.Fatalf("a failed version_vector answer left no error")
	}
	return r, log
}

// The first seed of FuzzPullAnswers is a healthy peer: the harness pulls
// its three ops and the artifact one names, so the fuzzer starts from a
// round that reaches the store.
func TestFuzzPullAnswersHealthySeed(t *testing.T) {
	peersFile := filepath.Join(t.TempDir(), PeersFileName)
	if err := os.WriteFile(peersFile, []byte(`{"peers":[{"url":"http://hub.invalid","token":"`+fuzzPullToken+`"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	vector, ops, art := fuzzPullSeed()
	r, log := fuzzPullRound(t, peersFile, []byte(vector), []byte(ops), []byte(art), 0)
	if r.Err != nil || len(r.OriginErrs) != 0 || r.PulledEvents != 3 || log.vv[fuzzOrigin] != 3 || !log.arts["art_1"] {
		t.Fatalf("healthy seed: %+v, vector %v, artifacts %v", r, log.vv, log.arts)
	}
}

func checkNoToken(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, fuzzPullToken) {
		t.Fatalf("%s shows the token: %s", what, text)
	}
}
