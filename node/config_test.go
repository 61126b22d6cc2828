package node

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/mcp"
	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/hubpull"
	"github.com/lsnode/lsnode/sync/integrity"
)

func TestConfig_Validate(t *testing.T) {
	ok := DefaultConfig()
	if err := ok.Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no data dir", func(c *Config) { c.DataDir = "" }, "DataDir"},
		{"bad addr", func(c *Config) { c.HTTP.Addr = "nowhere" }, "HTTPAddr"},
		{"public without token", func(c *Config) { c.HTTP.Addr = "0.0.0.0:8765" }, "non-loopback"},
		{"all interfaces without token", func(c *Config) { c.HTTP.Addr = ":8765" }, "non-loopback"},
		{"half TLS", func(c *Config) { c.Auth.TLSCertFile = "c.pem" }, "TLS requires both --tls-cert and --tls-key"},
		{"negative cap", func(c *Config) { c.HTTP.SSEMaxClients = -1 }, "SSEMaxClients"},
		{"zero heartbeat", func(c *Config) { c.HTTP.SSEHeartbeat = 0 }, "SSEHeartbeat"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	c := DefaultConfig()
	c.HTTP.Addr = "0.0.0.0:8765"
	if err := c.Validate(); !errors.Is(err, ErrInsecureBind) {
		t.Fatalf("want ErrInsecureBind, got %v", err)
	}
	for _, fix := range []func(*Config){func(c *Config) { c.Auth.Token = "t" }, func(c *Config) { c.Auth.AllowInsecureNoToken = true }} {
		c := DefaultConfig()
		c.HTTP.Addr = "0.0.0.0:8765"
		fix(&c)
		if err := c.Validate(); err != nil {
			t.Fatalf("fixed public bind: %v", err)
		}
	}
}

// TestDefaultConfig_ComposesTheParts: the node's defaults are each part's
// own, but for what the node decides: no gossip unless asked, and the
// fields it sets itself (cluster id, paths) left empty.
func TestDefaultConfig_ComposesTheParts(t *testing.T) {
	c := DefaultConfig()
	gossip := membership.DefaultConfig("")
	gossip.BindAddr = ""
	for _, p := range []struct {
		name      string
		got, want any
	}{
		{"Store", c.Store, store.DefaultConfig()},
		{"HTTP", c.HTTP, httpapi.DefaultConfig()},
		{"MCP", c.MCP, mcp.DefaultConfig()},
		{"Auth", c.Auth, auth.DefaultConfig()},
		{"Replication", c.Replication, grpcpeer.DefaultConfig("")},
		{"Membership", c.Membership, gossip},
		{"HubPull", c.HubPull, hubpull.DefaultConfig("")},
		{"Integrity", c.Integrity, integrity.DefaultConfig()},
	} {
		if !reflect.DeepEqual(p.got, p.want) {
			t.Errorf("%s = %+v, want the part's DefaultConfig %+v", p.name, p.got, p.want)
		}
	}
}

// TestConfig_ValidateRunsEachPart: a problem only a part's own Validate
// knows of is refused by the node's.
func TestConfig_ValidateRunsEachPart(t *testing.T) {
	gossip := func(c *Config) { c.Replication.Addr, c.Membership.BindAddr = "127.0.0.1:0", "127.0.0.1:0" }
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"store", func(c *Config) { c.Store.ReplicaID = "not an id" }, `store: invalid replica id "not an id"`},
		{"http", func(c *Config) { c.HTTP.MaxHeaderBytes = 100 }, "--max-header-bytes must be at least 4096"},
		{"mcp", func(c *Config) { c.MCP.MaxRequestBytes = 0 }, "MaxRequestBytes must be positive"},
		{"auth", func(c *Config) { c.Auth.TLSKeyFile = "k.pem" }, "TLS requires both"},
		{"replication", func(c *Config) { c.Replication.StallTimeout = 0 }, "replication: invalid sync config"},
		{"membership", func(c *Config) { gossip(c); c.Membership.EventQueue = 0 }, "gossip: membership: invalid config: EventQueue"},
		{"hub pull", func(c *Config) { c.HubPull.PageLimit = 0 }, "http pull: invalid sync config: PageLimit"},
		{"integrity", func(c *Config) { c.Integrity.Policy = -1 }, "unsigned-origins policy -1"},
	} {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// A part that does not run is not checked: gossip's settings without
	// gossip, the puller's without a pull.
	c := DefaultConfig()
	c.Membership.EventQueue, c.HubPull.PageLimit, c.HubPull.Interval = 0, 0, 0
	if err := c.Validate(); err != nil {
		t.Fatalf("settings of parts that do not run: %v", err)
	}
}
