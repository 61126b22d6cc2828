package httpapi

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// testServer is the surface served on a free loopback port, over a store
// in a temp dir, as the node serves it.
type testServer struct {
	*Server
	url   string
	store *store.Store
	reg   *prometheus.Registry
	srv   *http.Server
	once  sync.Once
	err   error // of the one Shutdown
}

func (ts *testServer) URL() string         { return ts.url }
func (ts *testServer) Store() *store.Store { return ts.store }

// Shutdown stops the server as the node does: streams and long polls end
// at once (Drain), in-flight requests finish. Later calls return the
// first one's error.
func (ts *testServer) Shutdown(ctx context.Context) error {
	ts.once.Do(func() { ts.err = ts.srv.Shutdown(ctx) })
	return ts.err
}

// mcpStandIn answers POST /mcp in place of the MCP handler (node/mcp):
// these tests are about what runs before it.
var mcpStandIn = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
})

// testConfig is the surface with its default configuration
// (DefaultConfig), with a heartbeat long enough that only tests that want
// pings see them.
func testConfig(t testing.TB) Options {
	o := Options{
		Config: DefaultConfig(), Version: "dev", DataDir: t.TempDir(), BindHost: "127.0.0.1", Scheme: "http",
		Logger: nodetest.DiscardLogger(), Registry: prometheus.NewRegistry(), Wall: hlc.SystemClock{},
	}
	o.SSEHeartbeat = time.Hour
	return o
}

// htStart serves the surface of testConfig adjusted by mutate, on a store
// of its own unless mutate names one, and stops it when the test ends.
func htStart(t testing.TB, mutate func(*Options)) *testServer {
	t.Helper()
	return htStartWith(t, mutate, nil)
}

// htStartWith is htStart with mount, when not nil, run on the surface
// before its handler is built (the console tests enable the console).
func htStartWith(t testing.TB, mutate func(*Options), mount func(*testServer)) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.Port = ln.Addr().(*net.TCPAddr).Port
	drain, cancelDrain := context.WithCancel(context.Background())
	cfg.Drain = drain
	if mutate != nil {
		mutate(&cfg)
	}
	ts := &testServer{url: "http://127.0.0.1:" + strconv.Itoa(cfg.Port), reg: cfg.Registry}
	if cfg.Store == nil {
		cfg.Store = nodetest.OpenStore(t)
	}
	ts.store, _ = cfg.Store.(*store.Store)
	ts.Server = New(cfg)
	if mount != nil {
		mount(ts)
	}
	ts.RegisterReadyGauge()
	ts.srv = NewHTTPServer(cfg, ts.Handler(mcpStandIn), nil)
	ts.srv.RegisterOnShutdown(cancelDrain)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ts.srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		<-done
	})
	return ts
}

// withToken requires the shared token.
func withToken(c *Options) { c.Auth = auth.NewAuthenticator(nodetest.SharedToken, nil) }

// tkStart serves the surface with the shared token and the tokens file
// of the token tests (nodetest.TokensFile).
func tkStart(t *testing.T) *testServer {
	t.Helper()
	tokens, err := auth.OpenTokens(nodetest.WriteTokensFile(t, nodetest.TokensFile), nodetest.SharedToken)
	if err != nil {
		t.Fatal(err)
	}
	return htStart(t, func(c *Options) { c.Auth = auth.NewAuthenticator(nodetest.SharedToken, tokens) })
}
