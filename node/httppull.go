package node

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// startHTTPPull pulls from the Python hubs (and any HTTP peers) listed in
// <data dir>/peers.json: one round at start, then every HTTPSyncInterval.
// It runs whether or not gRPC replication is on.
func (n *Node) startHTTPPull(ctx context.Context) error {
	if n.cfg.HTTPSyncInterval <= 0 {
		return nil
	}
	cfg := hubpull.DefaultConfig(filepath.Join(n.cfg.DataDir, hubpull.PeersFileName))
	cfg.Interval = n.cfg.HTTPSyncInterval
	if n.cfg.HTTPSyncTimeout != 0 {
		cfg.Timeout = n.cfg.HTTPSyncTimeout
	}
	cfg.Logger, cfg.Metrics, cfg.Wall = n.log, n.reg, n.wall
	cfg.Integrity = n.integrity
	if n.cfg.TLSCAFile != "" {
		tr, err := auth.MeshCATransport(n.cfg.TLSCAFile, n.log)
		if err != nil {
			return err
		}
		cfg.Transport = tr
	}
	p, err := hubpull.NewPuller(cfg, n.store)
	if err != nil {
		return fmt.Errorf("http pull: %w", err)
	}
	if err := p.Start(ctx); err != nil {
		return fmt.Errorf("http pull: %w", err)
	}
	n.httpPull = p
	return nil
}

// httpPeerStates renders the HTTP peers' estate in the Python shape, and
// the profiles they relayed.
func httpPeerStates(p *hubpull.Puller) ([]syncwire.EstatePeer, map[string]any) {
	if p == nil {
		return nil, nil
	}
	var peers []syncwire.EstatePeer
	profiles := map[string]any{}
	for _, s := range p.Status() {
		ps := syncwire.EstatePeer{
			Name: s.Name, URL: s.URL, Synced: s.Synced, ReplicaID: s.ReplicaID, Reachable: s.Reachable,
			LastError: s.LastError, LastErrorAt: s.LastErrorAt, LastSuccessAt: s.LastSuccessAt,
			LastPulledEvents: s.LastPulledEvents, LastPulledArtifacts: s.LastPulledArtifacts,
			RemoteVersionVector: s.RemoteVersionVector,
		}
		if len(s.Profile) > 0 {
			ps.Profile = json.RawMessage(s.Profile)
		}
		for id, prof := range s.Profiles {
			profiles[id] = json.RawMessage(prof)
		}
		peers = append(peers, ps)
	}
	return peers, profiles
}
