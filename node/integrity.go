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
// handled by Config.Integrity.Policy.
func (n *Node) openIntegrity(ctx context.Context) (*integrity.Integrity, error) {
	path := filepath.Join(n.cfg.DataDir, opsig.KeyFile)
	key, minted, err := opsig.LoadOrMintKey(path)
	if err != nil {
		return nil, err
	}
	cfg := n.cfg.Integrity
	cfg.Self, cfg.Key, cfg.Keys, cfg.Logger, cfg.Metrics = n.store.ReplicaID(), key, n.store, n.log, n.reg
	in, err := integrity.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("origin integrity: %w", err)
	}
	if minted {
		n.log.Info("minted the node's signing key", "path", path, "fingerprint", in.Fingerprint())
	}
	return in, nil
}
