package membership

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// KnownPeersFile is the name of the known peers file in the data dir.
const KnownPeersFile = "lsnode-peers.json"

// knownPeersVersion is the format version of KnownPeersFile.
const knownPeersVersion = 1

// knownPeersDoc is the file's content:
//
//	{"version": 1, "cluster_id": "prod", "peers": [
//	  {"name": "node-b", "addr": "10.0.0.2:7946", "last_seen": "2026-12-01T10:00:00Z"}]}
//
// A file written for another cluster id is ignored (a data dir reused
// across clusters must not rejoin the old one).
type knownPeersDoc struct {
	Version   int         `json:"version"`
	ClusterID string      `json:"cluster_id"`
	Peers     []knownPeer `json:"peers"`
}

type knownPeer struct {
	Name     string    `json:"name"`
	Addr     string    `json:"addr"`
	LastSeen time.Time `json:"last_seen"`
}

// knownPeers is the set of peers this node has seen alive, kept in the
// data dir so a restarted or long-partitioned node can find them again.
// A peer that leaves gracefully is removed; a dead one stays until
// ForgetAfter. It is used by the events and rejoin goroutines.
type knownPeers struct {
	path    string // "" keeps nothing on disk
	cluster string
	self    string

	mu      sync.Mutex
	peers   map[string]knownPeer
	dirty   bool // membership changed: write at the next flush
	touched bool // only last_seen changed: write at shutdown
}

// loadKnownPeers reads dir's file. A missing file is empty; an unreadable
// or foreign one is reported and ignored (the result is still usable).
func loadKnownPeers(dir, cluster, self string) (*knownPeers, error) {
	k := &knownPeers{cluster: cluster, self: self, peers: map[string]knownPeer{}}
	if dir == "" {
		return k, nil
	}
	k.path = filepath.Join(dir, KnownPeersFile)
	raw, err := os.ReadFile(k.path)
	if errors.Is(err, os.ErrNotExist) {
		return k, nil
	}
	if err != nil {
		return k, err
	}
	var doc knownPeersDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return k, fmt.Errorf("%s is malformed: %w", k.path, err)
	}
	if doc.Version != knownPeersVersion {
		return k, fmt.Errorf("%s has format version %d, want %d", k.path, doc.Version, knownPeersVersion)
	}
	if doc.ClusterID != cluster {
		return k, fmt.Errorf("%s lists peers of cluster %q, this node is in %q", k.path, doc.ClusterID, cluster)
	}
	for _, p := range doc.Peers {
		if p.Name != "" && p.Addr != "" && p.Name != self {
			k.peers[p.Name] = p
		}
	}
	return k, nil
}

// seen records that name is alive at addr.
func (k *knownPeers) seen(name, addr string, now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if name == k.self {
		return
	}
	prev, ok := k.peers[name]
	k.peers[name] = knownPeer{Name: name, Addr: addr, LastSeen: now.UTC().Truncate(time.Second)}
	if !ok || prev.Addr != addr {
		k.dirty = true
	} else {
		k.touched = true
	}
}

// remove forgets name.
func (k *knownPeers) remove(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.peers[name]; ok {
		delete(k.peers, name)
		k.dirty = true
	}
}

// list returns the known peers sorted by name.
func (k *knownPeers) list() []knownPeer {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]knownPeer, 0, len(k.peers))
	for _, p := range k.peers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// flush writes the file when the set of peers or an address changed.
func (k *knownPeers) flush() error { return k.write(false) }

// save writes the file when anything changed, last_seen included.
func (k *knownPeers) save() error { return k.write(true) }

func (k *knownPeers) write(all bool) error {
	k.mu.Lock()
	if k.path == "" || !(k.dirty || all && k.touched) {
		k.mu.Unlock()
		return nil
	}
	doc := knownPeersDoc{Version: knownPeersVersion, ClusterID: k.cluster, Peers: []knownPeer{}}
	for _, p := range k.peers {
		doc.Peers = append(doc.Peers, p)
	}
	k.dirty, k.touched = false, false
	k.mu.Unlock()
	sort.Slice(doc.Peers, func(i, j int) bool { return doc.Peers[i].Name < doc.Peers[j].Name })
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(k.path, append(raw, '\n')); err != nil {
		k.mu.Lock()
		k.dirty = true // try again at the next flush
		k.mu.Unlock()
		return err
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over path, then syncs the directory, so a
// crash leaves the old file or the new one, never a mix.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
