package auth

import (
	"errors"
	"log/slog"
)

// Config is who may use a node's surfaces and how its connections are
// secured: the tokens, the HTTPS key pair and the mesh CA of replication.
// The node reads the files it names when it starts (CheckFiles reads them
// before).
type Config struct {
	// Token is the bearer token every route but the health probes
	// requires. "" means no route requires one (as in the Python hub).
	Token string
	// TokensFile is the agent tokens file (README "Agent tokens"): per
	// token, the from_agent names it may write as and what it may read.
	// "" configures none. With a tokens file every route but the health
	// probes needs a token; Token, if set too, keeps full access.
	TokensFile string
	// AllowInsecureNoToken permits a non-loopback bind without Token, for
	// deployments where a trusted fronting layer does access control.
	AllowInsecureNoToken bool
	// TLSCertFile and TLSKeyFile enable HTTPS (TLS 1.2 or later). Both or
	// neither.
	TLSCertFile string
	TLSKeyFile  string
	// TLSCAFile turns on mutual TLS for replication (PeerTLS): the node
	// presents TLSCertFile/TLSKeyFile to its peers and accepts only peers
	// whose certificate chains to a CA of this PEM file. The pull from
	// peers.json also trusts https peers it signed (MeshCATransport). It
	// needs both TLS files. "" keeps replication plaintext.
	TLSCAFile string
}

// DefaultConfig is no token, no tokens file and no TLS: what a loopback
// node needs.
func DefaultConfig() Config { return Config{} }

// Validate reports the first problem of c that needs no file read.
func (c Config) Validate() error {
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return errors.New("TLS requires both --tls-cert and --tls-key (or the matching env vars)")
	}
	return nil
}

// CheckFiles reads the TLS files c names (the HTTPS key pair, the mesh
// CA) as the node does when it starts, so that a bad one is refused
// before anything else happens. The tokens file is read by OpenTokens.
func (c Config) CheckFiles() error {
	if _, err := ServerTLS(c.TLSCertFile, c.TLSKeyFile, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	if c.TLSCAFile != "" {
		if _, err := LoadCAPool(c.TLSCAFile); err != nil {
			return err
		}
	}
	return nil
}
