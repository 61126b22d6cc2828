package integrity

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/opsig"
)

// UnsignedPolicy says what becomes of ops of origins that do not sign
// (Python hubs, older nodes) and have no pinned key.
type UnsignedPolicy int

const (
	// UnsignedAccept applies them (a mixed mesh with Python hubs works).
	UnsignedAccept UnsignedPolicy = iota
	// UnsignedRefuse quarantines them without consuming their slots.
	UnsignedRefuse
)

// ParseUnsignedPolicy reads "accept" or "refuse".
func ParseUnsignedPolicy(s string) (UnsignedPolicy, error) {
	switch s {
	case "accept":
		return UnsignedAccept, nil
	case "refuse":
		return UnsignedRefuse, nil
	}
	return 0, fmt.Errorf("%w: unsigned-origins policy %q (want accept or refuse)", lssync.ErrInvalidConfig, s)
}

func (p UnsignedPolicy) String() string {
	if p == UnsignedRefuse {
		return "refuse"
	}
	return "accept"
}

// KeyStore keeps the pinned origin keys; *store.Store provides it.
type KeyStore interface {
	OriginKeys(ctx context.Context) (map[string][]byte, error)
	PinOriginKey(ctx context.Context, origin string, key []byte, learnedFrom string) ([]byte, error)
	ArtifactDigests(ctx context.Context, ids []string) (map[string]string, error)
}

var (
	_ KeyStore         = (*store.Store)(nil)
	_ lssync.Integrity = (*Integrity)(nil)
)

// Config configures New. Start from DefaultConfig.
type Config struct {
	Self string             // this node's replica id
	Key  ed25519.PrivateKey // this node's signing key (node.key)
	// Policy is what becomes of ops of origins that do not sign them and
	// have no pinned key. Default UnsignedAccept.
	Policy UnsignedPolicy
	Keys   KeyStore
	Logger *slog.Logger
	// Metrics is where the collectors are registered; nil registers none.
	Metrics prometheus.Registerer
}

// DefaultConfig is the policy of a mixed mesh: unsigned origins accepted.
// Self, Key and Keys are the caller's.
func DefaultConfig() Config { return Config{Policy: UnsignedAccept} }

// Validate reports a policy that is neither accept nor refuse. New checks
// Self, Key and Keys, which a caller sets once its store is open.
func (c Config) Validate() error {
	if c.Policy != UnsignedAccept && c.Policy != UnsignedRefuse {
		return fmt.Errorf("%w: unsigned-origins policy %d (want accept or refuse)", lssync.ErrInvalidConfig, int(c.Policy))
	}
	return nil
}

// Integrity is origin integrity for one node (lssync.Integrity): it signs
// the node's own ops when they are served, learns origins' public keys
// (trust on first use: the first key seen for an origin is pinned, a
// different one later is refused and reported), and checks every received
// op of an origin against its pinned key before it is applied. An op that
// fails gets a store.Refusal, so the store quarantines it without
// consuming its slot and the genuine op still applies when an honest peer
// brings it.
//
// It is shared by all sessions and the HTTP puller and safe for
// concurrent use. Verification runs on up to GOMAXPROCS goroutines per
// batch, started and joined inside the call.
type Integrity struct {
	self    string
	key     ed25519.PrivateKey
	pub     ed25519.PublicKey
	policy  UnsignedPolicy
	keys    KeyStore
	logger  *slog.Logger
	m       *integrityMetrics
	workers int
	own     *sigCache // this node's recent signatures
	vs      verifiers // per-origin precomputed verification

	mu       sync.RWMutex
	pinned   map[string]ed25519.PublicKey
	reported map[string]bool // origin + conflicting fingerprint, logged once
}

// New loads the pinned keys and pins this node's own key. It
// fails when the data dir already pinned another key for this node (its
// node.key was replaced): peers would refuse everything it signs.
func New(ctx context.Context, cfg Config) (*Integrity, error) {
	if cfg.Key == nil || cfg.Keys == nil || cfg.Self == "" {
		return nil, fmt.Errorf("%w: integrity needs Self, Key and Keys", lssync.ErrInvalidConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	pinned, err := cfg.Keys.OriginKeys(ctx)
	if err != nil {
		return nil, err
	}
	in := &Integrity{
		self: cfg.Self, key: cfg.Key, pub: cfg.Key.Public().(ed25519.PublicKey), policy: cfg.Policy,
		keys: cfg.Keys, logger: logger.With("component", "integrity"), m: newIntegrityMetrics(cfg.Metrics),
		workers: max(runtime.GOMAXPROCS(0), 1), own: newSigCache(ownSigCacheSize), pinned: map[string]ed25519.PublicKey{}, reported: map[string]bool{},
	}
	for origin, k := range pinned {
		in.pinned[origin] = k
	}
	own, err := cfg.Keys.PinOriginKey(ctx, cfg.Self, in.pub, cfg.Self)
	if err != nil {
		return nil, err
	}
	if !in.pub.Equal(ed25519.PublicKey(own)) {
		return nil, fmt.Errorf("%w: %s holds key %s but this data dir pinned %s for its own origin %s; peers refuse ops signed with another key — restore the original %s",
			lssync.ErrInvalidConfig, opsig.KeyFile, opsig.Fingerprint(in.pub), opsig.Fingerprint(own), cfg.Self, opsig.KeyFile)
	}
	in.pinned[cfg.Self] = in.pub
	return in, nil
}

// PublicKey is this node's public key.
func (in *Integrity) PublicKey() ed25519.PublicKey { return in.pub }

// Fingerprint is this node's key fingerprint (SHA256:...).
func (in *Integrity) Fingerprint() string { return opsig.Fingerprint(in.pub) }

// Policy is the unsigned-origins policy.
func (in *Integrity) Policy() UnsignedPolicy { return in.policy }

func (in *Integrity) pinnedKey(origin string) ed25519.PublicKey {
	in.mu.RLock()
	defer in.mu.RUnlock()
	return in.pinned[origin]
}

// Learn pins key for origin on first sight (learned from peer). A key
// other than the pinned one is refused: it is counted and logged loudly,
// once per distinct key, with both fingerprints. Malformed keys are
// ignored (counted as conflicts would blame the origin for a relay's bug).
func (in *Integrity) Learn(ctx context.Context, origin string, key []byte, peer string) error {
	if len(key) != ed25519.PublicKeySize || !store.ValidReplicaID(origin) {
		in.logger.Warn("ignored a malformed origin key", "origin", origin, "peer", peer, "key_bytes", len(key))
		return nil
	}
	pub := ed25519.PublicKey(key)
	if have := in.pinnedKey(origin); have != nil {
		in.checkSame(origin, have, pub, peer)
		return nil
	}
	pinned, err := in.keys.PinOriginKey(ctx, origin, pub, peer)
	if err != nil {
		return fmt.Errorf("pin the key of origin %s: %w", origin, err)
	}
	in.mu.Lock()
	in.pinned[origin] = pinned
	in.mu.Unlock()
	if in.checkSame(origin, pinned, pub, peer) {
		in.logger.Info("pinned origin key (trust on first use)", "origin", origin, "fingerprint", opsig.Fingerprint(pub), "learned_from", peer)
	}
	return nil
}

// checkSame reports a key that differs from the pinned one.
func (in *Integrity) checkSame(origin string, pinned, offered ed25519.PublicKey, peer string) bool {
	if pinned.Equal(offered) {
		return true
	}
	fp := opsig.Fingerprint(offered)
	in.m.conflict()
	in.mu.Lock()
	first := !in.reported[origin+" "+fp]
	in.reported[origin+" "+fp] = true
	in.mu.Unlock()
	if first {
		in.logger.Error("REFUSED A DIFFERENT KEY FOR A PINNED ORIGIN: its ops signed with that key will be quarantined; if the origin's key really changed, an operator must remove the pin",
			"origin", origin, "pinned_fingerprint", opsig.Fingerprint(pinned), "offered_fingerprint", fp, "offered_by", peer)
	}
	return false
}

// KeysFor returns the pinned keys of the origins whose signed ops ride in
// a batch, for Batch.origin_keys.
func (in *Integrity) KeysFor(origins map[string]bool) map[string]ed25519.PublicKey {
	in.mu.RLock()
	defer in.mu.RUnlock()
	out := make(map[string]ed25519.PublicKey, len(origins))
	for o := range origins {
		if k := in.pinned[o]; k != nil {
			out[o] = k
		}
	}
	return out
}

var errNoKey = errors.New("signed op of an origin whose public key is not known here (the sender did not announce it)")
