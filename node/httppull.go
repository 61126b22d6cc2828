package node

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// startHTTPPull pulls from the Python hubs (and any HTTP peers) listed in
// <data dir>/peers.json: one round at start, then every HubPull.Interval.
// It runs whether or not gRPC replication is on.
func (n *Node) startHTTPPull(ctx context.Context) error {
	if n.cfg.HubPull.Interval <= 0 {
		return nil
	}
	cfg := n.cfg.hubPullConfig()
	cfg.Logger, cfg.Metrics, cfg.Wall, cfg.Integrity = n.log, n.reg, n.wall, n.integrity
	if n.cfg.Auth.TLSCAFile != "" {
		tr, err := auth.MeshCATransport(n.cfg.Auth.TLSCAFile, n.log)
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
