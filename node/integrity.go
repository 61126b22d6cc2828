package node

import (
	"context"
	"fmt"
	"path/filepath"

	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/opsig"
)

// openIntegrity loads (or mints on first start) <data dir>/node.key and
// returns the node's origin integrity: its ops signed when served, its
// peers' verified against the keys pinned on first use, unsigned origins
// handled by Config.UnsignedOrigins.
func (n *Node) openIntegrity(ctx context.Context) (*lssync.Integrity, error) {
	policy := lssync.UnsignedAccept
	if n.cfg.UnsignedOrigins != "" {
		p, err := lssync.ParseUnsignedPolicy(n.cfg.UnsignedOrigins)
		if err != nil {
			return nil, err
		}
		policy = p
	}
	path := filepath.Join(n.cfg.DataDir, opsig.KeyFile)
	key, minted, err := opsig.LoadOrMintKey(path)
	if err != nil {
		return nil, err
	}
	in, err := lssync.NewIntegrity(ctx, lssync.IntegrityConfig{
		Self: n.store.ReplicaID(), Key: key, Policy: policy, Keys: n.store, Logger: n.log, Metrics: n.reg,
	})
	if err != nil {
		return nil, fmt.Errorf("origin integrity: %w", err)
	}
	if minted {
		n.log.Info("minted the node's signing key", "path", path, "fingerprint", in.Fingerprint())
	}
	return in, nil
}
