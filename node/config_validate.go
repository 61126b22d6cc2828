package node

import (
	"errors"
	"fmt"
	"net"

	"github.com/lsnode/lsnode/internal/hostport"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/membership"
)

// ErrInsecureBind is returned by Validate for a non-loopback bind with no
// token and no AllowInsecureNoToken. Its text is the Python hub's,
// adapted to lsnode's flags, full stops included.
//
//lint:ignore ST1005 the operator-facing text keeps the hub's sentences.
var ErrInsecureBind = errors.New("a bearer token (--token-file, LSNODE_TOKEN or MEMPALACE_MCP_HTTP_TOKEN) " +
	"is required when binding MCP HTTP to a non-loopback host. Set --allow-insecure-no-token " +
	"(MEMPALACE_MCP_HTTP_ALLOW_INSECURE_NO_TOKEN=1) only when a trusted fronting layer provides access control.")

// Validate reports the first problem of the configuration: each part's
// (its Validate, and the node's bounds on it), then what spans parts,
// then the form of every address, all without reading a file or
// touching the data dir (CheckFiles reads the files).
func (c Config) Validate() error {
	if c.DataDir == "" {
		return errors.New("config: DataDir is required")
	}
	if err := c.HTTP.Validate(); err != nil {
		return err
	}
	httpAddr, _ := hostport.Bind(c.HTTP.Addr) // its form is checked by HTTP.Validate
	if !auth.IsLoopbackHost(httpAddr.Host) && c.Auth.Token == "" && c.Auth.TokensFile == "" && !c.Auth.AllowInsecureNoToken {
		return ErrInsecureBind
	}
	if err := c.Auth.Validate(); err != nil {
		return err
	}
	if c.Auth.TLSCAFile != "" && (c.Auth.TLSCertFile == "" || c.Replication.Addr == "") {
		return errors.New("--tls-ca needs --tls-cert, --tls-key and --grpc: it secures replication with the node's key pair")
	}
	if err := c.MCP.Validate(); err != nil {
		return err
	}
	if c.Store.MaxPageBytes < 1<<20 {
		return errors.New("--max-page-bytes must be at least 1048576")
	}
	if err := c.storeConfig().Validate(); err != nil {
		return err
	}
	if c.ClusterID == "" {
		return errors.New("config: ClusterID is required")
	}
	if err := c.validateHubPull(); err != nil {
		return err
	}
	if err := c.validateMesh(); err != nil {
		return err
	}
	if err := c.Integrity.Validate(); err != nil {
		return err
	}
	return c.checkAddrs(httpAddr)
}

// validateHubPull checks the pull from peers.json, when it runs.
func (c Config) validateHubPull() error {
	switch {
	case c.HubPull.Interval < 0:
		return errors.New("config: HTTPSyncInterval must not be negative")
	case c.HubPull.Interval == 0:
		return nil
	}
	if err := c.hubPullConfig().Validate(); err != nil {
		return fmt.Errorf("http pull: %w", err)
	}
	return nil
}

// validateMesh checks replication and gossip: what each needs of the
// other, the node's bounds on replication's limits (checked whether or
// not replication runs, as the flags are), then replication's Validate.
// Gossip's Validate runs with the addresses (checkAddrs).
func (c Config) validateMesh() error {
	r, m := c.Replication, c.Membership
	switch {
	case r.MaxClockOffset <= 0:
		return errors.New("config: MaxClockOffset must be positive")
	case len(r.Peers) > 0 && r.Addr == "":
		return errors.New("--peer needs --grpc: replication peers are reached over gRPC")
	case m.BindAddr != "" && r.Addr == "":
		return errors.New("--gossip needs --grpc: members found by gossip are replicated with over gRPC")
	case len(m.Join) > 0 && m.BindAddr == "":
		return errors.New("--join needs --gossip")
	case r.MaxMessageBytes < MinGRPCMessageBytes:
		return fmt.Errorf("--grpc-max-message-bytes must be at least %d (a batch plus the largest artifact)", MinGRPCMessageBytes)
	case r.MaxStreamsPerConn < 1 || r.MaxStreamsPerConn > 1<<16:
		return errors.New("--grpc-max-streams-per-conn must be 1..65536")
	case r.MaxInboundSessions < 1:
		return errors.New("--grpc-max-sessions must be at least 1")
	case r.HandshakeTimeout <= 0:
		return errors.New("--grpc-handshake-timeout must be positive")
	case m.RejoinInterval < 0:
		return errors.New("--rejoin-interval must not be negative")
	}
	if err := c.replicationConfig().Validate(); err != nil {
		return fmt.Errorf("replication: %w", err)
	}
	return nil
}

// CheckFiles reads the files the configuration names that Start loads
// (the HTTPS key pair, the --tls-ca file, the gossip key file), so that a
// caller can refuse a bad one before anything touches the data dir (serve
// does, before it locks the dir). Start reads them again.
func (c Config) CheckFiles() error {
	if err := c.Auth.CheckFiles(); err != nil {
		return err
	}
	if c.Membership.BindAddr != "" && c.Membership.KeyringFile != "" {
		if _, err := membership.LoadKeyringFile(c.Membership.KeyringFile); err != nil {
			return err
		}
	}
	return nil
}

// checkAddrs checks the form of the replication and gossip addresses and
// that no two listeners claim one port, so that a bad address is refused
// before the data dir is touched. What only a bind shows (a port in use,
// a host that is not local) still fails Start.
func (c Config) checkAddrs(httpAddr hostport.Addr) error {
	type bind struct {
		flag string
		addr hostport.Addr
	}
	r, m := c.Replication, c.Membership
	binds := []bind{{"--http", httpAddr}}
	if r.Addr != "" {
		a, err := hostport.Bind(r.Addr)
		if err != nil {
			return fmt.Errorf("--grpc %q: %w", r.Addr, err)
		}
		binds = append(binds, bind{"--grpc", a})
	}
	if r.Advertise != "" {
		if r.Addr == "" {
			return errors.New("--grpc-advertise needs --grpc: it is the replication address peers dial")
		}
		if _, err := hostport.Dial(r.Advertise); err != nil {
			return fmt.Errorf("--grpc-advertise %q: %w", r.Advertise, err)
		}
	}
	if m.BindAddr != "" {
		if err := c.membershipConfig().Validate(); err != nil {
			return fmt.Errorf("gossip: %w", err)
		}
		a, err := hostport.Bind(m.BindAddr)
		if err != nil {
			return fmt.Errorf("--gossip %q: %w", m.BindAddr, err)
		}
		binds = append(binds, bind{"--gossip", a})
	} else if m.AdvertiseAddr != "" {
		return errors.New("--advertise needs --gossip: it is the gossip address other members reach")
	}
	for _, p := range r.Peers {
		if _, err := hostport.Dial(p); err != nil {
			return fmt.Errorf("--peer %q: %w", p, err)
		}
	}
	for _, j := range m.Join {
		// A join address may leave out its port (gossip's default).
		if _, _, err := net.SplitHostPort(j); err == nil {
			if _, err := hostport.Dial(j); err != nil {
				return fmt.Errorf("--join %q: %w", j, err)
			}
		}
	}
	for i, a := range binds {
		for _, b := range binds[i+1:] {
			if a.addr.Overlaps(b.addr) {
				return fmt.Errorf("%s and %s both bind port %d", a.flag, b.flag, a.addr.Port)
			}
		}
	}
	return nil
}
