package node

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lsnode/lsnode/sync/integrity"
	"github.com/lsnode/lsnode/sync/opsig"
)

// openIntegrity loads (or mints on first start) <data dir>/node.key and
// returns the node's origin integrity: its ops signed when served, its
// peers' verified against the keys pinned on first use, unsigned origins
// handled by Config.UnsignedOrigins.
func (n *Node) openIntegrity(ctx context.Context) (*integrity.Integrity, error) {
	policy := integrity.UnsignedAccept
	if n.cfg.UnsignedOrigins != "" {
		p, err := integrity.ParseUnsignedPolicy(n.cfg.UnsignedOrigins)
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
	in, err := integrity.New(ctx, integrity.Config{
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
