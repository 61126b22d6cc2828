package membership

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/memberlist"
	"github.com/prometheus/client_golang/prometheus"
)

// Defaults of the Config fields.
const (
	DefaultBindAddr          = "0.0.0.0:7946"
	DefaultRejoinInterval    = 30 * time.Second
	DefaultForgetAfter       = 24 * time.Hour
	DefaultEventQueue        = 256
	DefaultReconcileInterval = 10 * time.Second
)

// Config configures one Membership. Start from DefaultConfig; Create fills
// zero durations and sizes with their defaults and then calls Validate.
type Config struct {
	// BindAddr is the host:port gossip binds, UDP and TCP on the same
	// port. Default "0.0.0.0:7946" (memberlist's). Port 0 picks a free
	// port (tests). Bind a non-loopback address only with a Keyring.
	BindAddr string
	// AdvertiseAddr is the ip:port other nodes reach this one at, for NAT
	// or containers. "" advertises the bind address (for 0.0.0.0, the
	// first private address memberlist finds). A missing port means the
	// bind port.
	AdvertiseAddr string
	// Name is this node's unique name in the cluster. "" means the host
	// name (read by Create); give distinct names to nodes sharing a host.
	Name string
	// Join are the seeds (host:port, or host with the bind port) the owner
	// joins through Join once Create has returned and the metadata is
	// announced (the node does, after UpdateMeta); Create itself joins
	// only the known peers.
	Join []string
	// ClusterID names the cluster. Nodes announcing another id are refused
	// (never become members) and shown as refused. Required.
	ClusterID string
	// Keyring holds the gossip encryption keys, AES-128/192/256 (16, 24 or
	// 32 bytes). The first is the primary: it encrypts, all of them
	// decrypt, so keys can be rotated. nil means no encryption (a warning
	// is logged for a non-loopback bind). See LoadKeyringFile.
	Keyring [][]byte
	// KeyringFile is where the keyring is saved (atomically, primary
	// first, LoadKeyringFile's format) after each keyring operation, so a
	// restart keeps rotated keys. "" keeps changes in memory only.
	KeyringFile string
	// KeyReplyTimeout bounds a keyring operation's wait for the members'
	// replies. Default DefaultKeyReplyTimeout.
	KeyReplyTimeout time.Duration
	// Meta is announced to the other nodes; its ClusterID is replaced by
	// Config.ClusterID. Its encoding must fit memberlist.MetaMaxSize.
	Meta Meta
	// DataDir holds the known peers file (KnownPeersFile). "" keeps no
	// file: a restarted node only rejoins through Join.
	DataDir string
	// RejoinInterval is how often the node joins again the known peers
	// (and Join's seeds) that are not alive, so a partition longer than
	// memberlist's reap time heals by itself. Default 30 s; negative
	// disables the loop (it still joins the known peers once at start).
	// It also bounds the wait between two retries of a failed Join
	// (DefaultRejoinInterval when negative).
	RejoinInterval time.Duration
	// ForgetAfter is how long a dead or left member stays in Members()
	// and (dead only) in the known peers file before it is forgotten and
	// no longer rejoined. Default 24 h.
	ForgetAfter time.Duration
	// EventQueue bounds the membership events waiting for the Handler.
	// A full queue drops events (lsnode_membership_events_dropped_total)
	// and the next reconciliation delivers what they carried. Default 256.
	EventQueue int
	// ReconcileInterval is the period of the full reconciliation of the
	// Handler's view with Members(). Default 10 s.
	ReconcileInterval time.Duration
	// Logger receives this package's logs and memberlist's; nil discards.
	Logger *slog.Logger
	// Registerer receives the lsnode_membership_* collectors; nil
	// registers nothing. Shutdown unregisters them.
	Registerer prometheus.Registerer

	// transport replaces memberlist's UDP/TCP transport. Tests only.
	transport memberlist.NodeAwareTransport
	// tune adjusts the memberlist config after this package has set it
	// (shorter timers in tests). Tests only.
	tune func(*memberlist.Config)
	// noStallWatch leaves out the stall watch (stall.go), so that a test
	// decides when the node reasserts itself. Tests only.
	noStallWatch bool
	// clock times the retries of a failed Join (join.go); nil means the
	// system clock. Tests only.
	clock clock
}

// DefaultConfig returns the defaults for clusterID.
func DefaultConfig(clusterID string) Config {
	return Config{
		BindAddr:          DefaultBindAddr,
		ClusterID:         clusterID,
		RejoinInterval:    DefaultRejoinInterval,
		ForgetAfter:       DefaultForgetAfter,
		EventQueue:        DefaultEventQueue,
		ReconcileInterval: DefaultReconcileInterval,
	}
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if c.BindAddr == "" {
		c.BindAddr = DefaultBindAddr
	}
	if c.Name == "" {
		c.Name, _ = os.Hostname()
	}
	if c.RejoinInterval == 0 {
		c.RejoinInterval = DefaultRejoinInterval
	}
	if c.ForgetAfter == 0 {
		c.ForgetAfter = DefaultForgetAfter
	}
	if c.EventQueue == 0 {
		c.EventQueue = DefaultEventQueue
	}
	if c.ReconcileInterval == 0 {
		c.ReconcileInterval = DefaultReconcileInterval
	}
	if c.KeyReplyTimeout == 0 {
		c.KeyReplyTimeout = DefaultKeyReplyTimeout
	}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	return c
}

// Validate reports the first problem of c; errors wrap ErrInvalidConfig.
// It reads no file and no host name: a Name of "" is left to Create.
func (c Config) Validate() error {
	switch {
	case c.ClusterID == "":
		return fmt.Errorf("%w: ClusterID is required", ErrInvalidConfig)
	case c.ForgetAfter < 0, c.ReconcileInterval <= 0, c.KeyReplyTimeout < 0:
		return fmt.Errorf("%w: ForgetAfter, ReconcileInterval and KeyReplyTimeout must be positive", ErrInvalidConfig)
	case c.EventQueue < 1:
		return fmt.Errorf("%w: EventQueue must be positive", ErrInvalidConfig)
	}
	if err := checkAddrs(c.BindAddr, c.AdvertiseAddr); err != nil {
		return err
	}
	if err := validateKeyring(c.Keyring); err != nil {
		return err
	}
	return nil
}

// checkAddrs checks a bind address and an advertise address ("" for
// none).
func checkAddrs(bind, advertise string) error {
	if _, _, err := splitBind(bind); err != nil {
		return fmt.Errorf("%w: BindAddr %q: %v", ErrInvalidConfig, bind, err)
	}
	if advertise != "" {
		if _, _, err := splitAdvertise(advertise, 0); err != nil {
			return fmt.Errorf("%w: AdvertiseAddr %q: %v", ErrInvalidConfig, advertise, err)
		}
	}
	return nil
}

// splitBind parses a bind address host:port.
func splitBind(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, fmt.Errorf("bad port %q", port)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return host, p, nil
}

// splitAdvertise parses an advertise address: an IP, with or without a
// port (defaultPort when missing).
func splitAdvertise(addr string, defaultPort int) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, strconv.Itoa(defaultPort)
	}
	if net.ParseIP(host) == nil {
		return "", 0, fmt.Errorf("%q is not an IP address", host)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", 0, fmt.Errorf("bad port %q", port)
	}
	return host, p, nil
}
