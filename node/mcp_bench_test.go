package node

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/node/mcp"
	"github.com/lsnode/lsnode/store"
)

// benchClients is how many clients post at once in BenchmarkMCPAppend.
const benchClients = 32

// benchToken is the bearer token of the benchmarks' node.
const benchToken = "bench-token"

// BenchmarkMCPAppend measures event_append throughput through POST /mcp:
// 32 clients of the lean load generator (loadgen_bench_test.go) post bare
// tools/call requests (no initialize, a bearer token) to the node's HTTP
// surface - the request policy and route, then mcp.Handler - backed by a
// real store in a temp dir ("sqlite"; with "idle-waits=32", while 32
// event_waits block in the store on a stream nothing is appended to) or by
// a store that only echoes the event ("none": the HTTP and tool layers
// alone), and once more with the SDK answering instead of the native
// path ("via=sdk": an empty _meta in the params, which only the SDK
// reads). For the ratios, in the same process: the raw SQLite rate
// ("raw", as store.BenchmarkRawInsert measures it), the store's own rate
// (32 goroutines calling Append, "direct"), and the floor of the load generator and net/http with a
// handler that answers from a template ("canned"). cpu-us/op is the whole
// process's: clients, server and store.
func BenchmarkMCPAppend(b *testing.B) {
	b.Run("raw", benchRawInsert)
	b.Run("direct", benchDirectAppend)
	b.Run("store=sqlite", func(b *testing.B) { benchAppend(b, nil, "", 0) })
	b.Run("store=sqlite,idle-waits=32", func(b *testing.B) { benchAppend(b, nil, "", 32) })
	b.Run("store=none", func(b *testing.B) { benchAppend(b, &echoLog{}, "", 0) })
	b.Run("store=none,via=sdk", func(b *testing.B) { benchAppend(b, &echoLog{}, `"_meta":{},`, 0) })
	b.Run("canned", benchCanned)
}

// benchRawInsert is the machine's SQLite limit as store.BenchmarkRawInsert
// takes it (rawTable). One op is one row.
func benchRawInsert(b *testing.B) {
	raw := openRawTable(b)
	b.ResetTimer()
	cpu := nodetest.StartCPU()
	elapsed := raw.insert(b, b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rows/s")
	cpu.Report(b)
}

// rawTable inserts rows as store.BenchmarkRawInsert does: bare
// transactions of 1000 rows into a fresh file with the store's schema
// (made by store.Open), one prepared INSERT, the writer's DSN; the rows
// have the shape of the benchmark's appends.
type rawTable struct {
	db      *sql.DB
	replica string
	clock   *hlc.Clock
	seq     int
}

func openRawTable(b *testing.B) *rawTable {
	dir := b.TempDir()
	st, err := store.Open(context.Background(), store.Config{Dir: dir, Metrics: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	replica := st.ReplicaID()
	st.Close()
	db, err := sql.Open("sqlite", store.WriterDSN(filepath.Join(dir, store.DBFile), false))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return &rawTable{db: db, replica: replica, clock: hlc.NewClock(hlc.SystemClock{}, replica, 0)}
}

// insert writes n rows and returns the time it took.
func (r *rawTable) insert(b *testing.B, n int) time.Duration {
	const perTxn = 1000
	start := time.Now()
	for done := 0; done < n; {
		tx, err := r.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		ins, err := tx.Prepare(`INSERT INTO events (id, type, stream, room, topic, from_agent, to_agent,
correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, origin_seq, hlc)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < perTxn && done < n; i++ {
			done++
			r.seq++
			now := time.Now().UTC()
			if _, err := ins.Exec(fmt.Sprintf("evt_%s_%012x", now.Format("20060102T150405"), r.seq), "note", "project/x", "r", nil,
				"agent-1", "agent-2", nil, nil, nil, "open", "body", now.Format("2006-01-02T15:04:05Z"), "{}", r.replica, r.seq,
				r.clock.Tick().String()); err != nil {
				b.Fatal(err)
			}
		}
		ins.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// mcpRatioRound is the number of ops of each side in a round of
// BenchmarkMCPAppendRatio.
const mcpRatioRound = 6400

// BenchmarkMCPAppendRatio holds POST /mcp to the raw rate side by side,
// as the target reads ("≥ 50 % of the raw batched SQLite rate
// measured in the same run"): rounds of raw rows (rawTable) and of
// appends by 32 clients through POST /mcp to a real store (the load of
// store=sqlite) alternate, so whatever else the machine runs in a given
// second weighs on both. It reports both rates, the ratio of the totals
// and the lowest and highest ratio of a round.
func BenchmarkMCPAppendRatio(b *testing.B) {
	raw := openRawTable(b)
	st, err := store.Open(context.Background(), store.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	target := newLoadTarget(benchSurface(b, st), benchToken)
	var rawTook, mcpTook time.Duration
	var ratios []float64
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(mcpRatioRound, b.N-done)
		r := raw.insert(b, n)
		m, err := runLoad(target, benchClients, n)
		if err != nil {
			b.Fatal(err)
		}
		done += n
		rawTook += r
		mcpTook += m
		ratios = append(ratios, 100*r.Seconds()/m.Seconds())
	}
	b.StopTimer()
	stats, err := st.Stats(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if stats.Events != int64(b.N) {
		b.Fatalf("the log holds %d events after %d appends", stats.Events, b.N)
	}
	b.ReportMetric(float64(b.N)/rawTook.Seconds(), "raw-rows/s")
	b.ReportMetric(float64(b.N)/mcpTook.Seconds(), "appends/s")
	b.ReportMetric(100*rawTook.Seconds()/mcpTook.Seconds(), "ratio-%")
	b.ReportMetric(slices.Min(ratios), "min-round-%")
	b.ReportMetric(slices.Max(ratios), "max-round-%")
}

// benchDirectAppend is the store alone: 32 goroutines calling Append.
func benchDirectAppend(b *testing.B) {
	st, err := store.Open(context.Background(), store.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	in := store.AppendInput{Type: "bench.append", Stream: "project/bench", Room: "delegation", FromAgent: "bench", ToAgent: "peer", Body: "hello"}
	b.SetParallelism(max(1, benchClients/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	cpu, start := nodetest.StartCPU(), time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := st.Append(context.Background(), in); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
	cpu.Report(b)
}

// benchAppend runs the load against a node surface on st (nil: a real
// store in a temp dir, with idle waits blocked in it on another stream)
// and checks that the log took every call.
func benchAppend(b *testing.B, st mcp.Store, extra string, idle int) {
	var count func() int64
	var reg *prometheus.Registry
	if st == nil {
		reg = prometheus.NewRegistry()
		real, err := store.Open(context.Background(), store.Config{Dir: b.TempDir(), Metrics: reg})
		if err != nil {
			b.Fatal(err)
		}
		defer real.Close()
		defer nodetest.IdleWaits(b, real, idle)()
		st = real
		count = func() int64 {
			stats, err := real.Stats(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			return stats.Events
		}
	} else {
		count = st.(*echoLog).n.Load
	}
	target := newLoadTarget(benchSurface(b, st), benchToken)
	target.extra = extra
	runBenchLoad(b, target)
	if n := count(); n != int64(b.N) {
		b.Fatalf("the log holds %d events after %d appends", n, b.N)
	}
	if reg != nil {
		reportWritesPerCommit(b, reg)
	}
}

// reportWritesPerCommit reports the mean number of writes that shared a
// store transaction, from the store's group-commit histogram in reg.
func reportWritesPerCommit(b *testing.B, reg *prometheus.Registry) {
	families, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "lsnode_store_group_commit_batch_size" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		b.ReportMetric(h.GetSampleSum()/float64(h.GetSampleCount()), "writes/commit")
		return
	}
	b.Fatal("the store exported no group-commit histogram")
}

// runBenchLoad runs b.N calls of the load generator and reports the rate
// and the CPU per call.
func runBenchLoad(b *testing.B, target loadTarget) {
	b.ResetTimer()
	cpu := nodetest.StartCPU()
	elapsed, err := runLoad(target, benchClients, b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
	cpu.Report(b)
}

// benchSurface serves st at POST /mcp through the node's HTTP surface and
// HTTP server, as Node.listen builds them, with benchToken as the shared
// token; it returns the base URL.
func benchSurface(b *testing.B, st mcp.Store) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	cfg, h := benchHandlerOf(b, st, ln.Addr().(*net.TCPAddr).Port)
	return serveBench(b, ln, httpapi.NewHTTPServer(cfg, h, nil))
}

// benchNode is a node with benchToken as the shared token; nothing is
// started.
func benchNode(b *testing.B) *Node {
	cfg := DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr, cfg.Auth.Token, cfg.Registry = b.TempDir(), "127.0.0.1:0", benchToken, prometheus.NewRegistry()
	n, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// benchHandlerOf is the root handler of a bench node's surfaces, bound to
// port on loopback, serving st at POST /mcp, and the surface's options.
func benchHandlerOf(b *testing.B, st mcp.Store, port int) (httpapi.Options, http.Handler) {
	n := benchNode(b)
	opts := n.httpOptions("127.0.0.1", port, "http")
	return opts, n.surfaces(opts, st)
}

// BenchmarkMCPHandler is the CPU of one tool call in the node's root
// handler (the HTTP surface's request policy and route, then mcp.Handler:
// the body read and screened, the native path's tool call on the store,
// the answer rendered) without the network and net/http: the handler runs on a
// request built once, as net/http would hand it over, and a
// ResponseWriter that keeps the answer. tool=append is event_append on a
// store that only echoes; tool=list,events=50 is an event_list of 50
// events on a real store holding 200. It moves far less with the
// machine's load than BenchmarkMCPAppend; cpu-us/op (the process's,
// garbage collection included) least.
//
// The hub's bare clients send no protocol version and get the text alone;
// with version=2025-11-25 (MCP-Protocol-Version, as streamable HTTP
// clients send it) the answer also carries the structured content; with
// version=2026-07-28 the request is of the sessionless protocol (the
// version and the client's capabilities in the params' _meta, the
// Mcp-Method and Mcp-Name headers) and the answer also carries the
// server's identity in its _meta.
func BenchmarkMCPHandler(b *testing.B) {
	for _, version := range []string{"", "2025-11-25", "2026-07-28"} {
		suffix := ""
		if version != "" {
			suffix = ",version=" + version
		}
		b.Run("tool=append"+suffix, func(b *testing.B) {
			body := loadBody(benchMeta(version), "000000001")
			benchHandler(b, &echoLog{}, body, "mempalace_event_append", version, `\"success\": true`)
		})
		b.Run("tool=list,events=50"+suffix, func(b *testing.B) {
			st, err := store.Open(context.Background(), store.Config{Dir: b.TempDir(), Metrics: prometheus.NewRegistry()})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			for i := range 200 {
				if _, err := st.Append(context.Background(), store.AppendInput{Type: "bench.list", Stream: "project/bench",
					Room: "delegation", FromAgent: "bench", ToAgent: "peer", Body: fmt.Sprintf("event %d of the listing", i)}); err != nil {
					b.Fatal(err)
				}
			}
			body := `{"jsonrpc":"2.0","id":"000000001","method":"tools/call","params":{` + benchMeta(version) + `"name":"mempalace_event_list",` +
				`"arguments":{"stream":"project/bench","limit":50}}}`
			benchHandler(b, st, body, "mempalace_event_list", version, `\"count\": 50`)
		})
	}
}

// benchSessionless is the first version of the sessionless protocol.
const benchSessionless = "2026-07-28"

// benchMeta is what a client of protocol version puts in a tools/call's
// params before the name: in the sessionless protocol the _meta with its
// version, capabilities and identity, as the official SDK's client sends
// them; nothing in the eras before it.
func benchMeta(version string) string {
	if version < benchSessionless {
		return ""
	}
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}},`
}

// benchHandler runs body, a tools/call of tool, through the handler of a
// node serving st until the benchmark ends, with MCP-Protocol-Version
// version when not empty (and in the sessionless protocol the Mcp-Method
// and Mcp-Name headers); every answer must be a 200 holding want.
func benchHandler(b *testing.B, st mcp.Store, body, tool, version, want string) {
	_, h := benchHandlerOf(b, st, 8765)
	r, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:8765/mcp", nil)
	if err != nil {
		b.Fatal(err)
	}
	r.RemoteAddr, r.RequestURI, r.ContentLength = "127.0.0.1:40000", "/mcp", int64(len(body))
	r.Header.Set("Authorization", "Bearer "+benchToken)
	r.Header.Set("Accept", "application/json")
	r.Header.Set("Content-Type", "application/json")
	if version != "" {
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", version)
	}
	if version >= benchSessionless {
		r.Header.Set("Mcp-Method", "tools/call")
		r.Header.Set("Mcp-Name", tool)
	}
	w := &keepWriter{header: http.Header{}}
	b.ReportAllocs()
	cpu := nodetest.StartCPU()
	for b.Loop() {
		r.Body = io.NopCloser(strings.NewReader(body))
		clear(w.header)
		w.body, w.status = w.body[:0], 0
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK || !bytes.Contains(w.body, []byte(want)) {
			b.Fatalf("%d %s", w.status, w.body)
		}
	}
	b.ReportMetric(float64(len(w.body)), "answer-bytes")
	cpu.Report(b)
}

// keepWriter is a ResponseWriter that keeps the status and the body.
type keepWriter struct {
	header http.Header
	status int
	body   []byte
}

func (w *keepWriter) Header() http.Header { return w.header }

func (w *keepWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

// SetWriteDeadline lets the mount widen the deadline, as it does on a
// connection.
func (w *keepWriter) SetWriteDeadline(time.Time) error { return nil }

func (w *keepWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, p...)
	return len(p), nil
}

// serveBench runs srv on ln until the benchmark ends; it returns the base
// URL.
func serveBench(b *testing.B, ln net.Listener, srv *http.Server) string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	b.Cleanup(func() {
		srv.Close()
		<-done
	})
	return "http://" + ln.Addr().String()
}

// echoLog is a log whose Append only echoes the input as an event with a
// fresh id, and counts.
type echoLog struct {
	mcp.Store
	n atomic.Int64
}

func (l *echoLog) Append(_ context.Context, in store.AppendInput) (store.Written, error) {
	n := l.n.Add(1)
	return store.Written{Event: store.Event{
		ID: "evt_bench_" + strconv.FormatInt(n, 10), Seq: n, Type: in.Type, Stream: in.Stream, Room: in.Room,
		FromAgent: in.FromAgent, ToAgent: in.ToAgent, Body: in.Body, CreatedAt: "2026-01-01T00:00:00Z",
	}}, nil
}

// benchCanned is the load generator against an HTTP server with the
// node's settings and a handler that reads the call and fills in a
// template answer: the floor under the other variants' CPU per call.
func benchCanned(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	head := []byte(`{"jsonrpc":"2.0","id":"`)
	mid := []byte(loadAnswerHead + `evt_canned\",\n    \"body\": \"`)
	tail := []byte(`\"` + loadAnswerTail)
	canned := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		i := bytes.Index(body, []byte(`"id":"`))
		if err != nil || i < 0 || len(body) < i+6+loadTagWidth {
			http.Error(w, "bad call", http.StatusBadRequest)
			return
		}
		tag := body[i+6 : i+6+loadTagWidth]
		out := slices.Concat(head, tag, mid, tag, tail)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
	base := serveBench(b, ln, httpapi.NewHTTPServer(benchNode(b).httpOptions("127.0.0.1", 0, "http"), canned, nil))
	runBenchLoad(b, newLoadTarget(base, ""))
}
