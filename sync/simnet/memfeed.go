package simnet

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/lsnode/lsnode/store"
)

// memFeed is a MemLog's artifact feed: every artifact it holds in the
// order it arrived, under an id that changes when the feed is numbered
// again (Renumber), and the cursors into its peers' feeds.
type memFeed struct {
	gen     int
	entries []store.FeedEntry
	cursors map[string]store.FeedCursor
	wake    chan struct{}
}

// PutArtifact stores a local artifact that no event names and returns
// it.
func (m *MemLog) PutArtifact(content string) store.Artifact {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := newArtifact(fmt.Sprintf("put_%s_%d", m.id, len(m.feed.entries)+1), content, m.id)
	m.storeArtifactLocked(a)
	return a
}

// Artifacts returns the ids of every held artifact, sorted.
func (m *MemLog) Artifacts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.artifacts))
}

// Renumber numbers the feed again under a new id, as a store does after
// a restore: peers' positions in the old feed no longer count.
func (m *MemLog) Renumber() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.feed.gen++
	for i := range m.feed.entries {
		m.feed.entries[i].Seq = int64(i + 1)
	}
}

func (m *MemLog) storeArtifactLocked(a store.Artifact) {
	m.artifacts[a.ID] = a
	m.feed.entries = append(m.feed.entries, store.FeedEntry{
		Seq: int64(len(m.feed.entries) + 1), ID: a.ID, SizeBytes: a.SizeBytes, OriginReplica: a.OriginReplica,
	})
	if m.feed.wake != nil {
		close(m.feed.wake)
		m.feed.wake = nil
	}
}

func (m *MemLog) storeCursorLocked(c store.FeedCursor) {
	if m.feed.cursors == nil {
		m.feed.cursors = map[string]store.FeedCursor{}
	}
	if held, ok := m.feed.cursors[c.Peer]; ok && held.FeedID == c.FeedID && held.Seq > c.Seq {
		return
	}
	m.feed.cursors[c.Peer] = c
}

// ArtifactFeedID implements lssync.ArtifactFeed.
func (m *MemLog) ArtifactFeedID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("feed_%s_%d", m.id, m.feed.gen)
}

// ArtifactFeedTop implements lssync.ArtifactFeed.
func (m *MemLog) ArtifactFeedTop() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.feed.entries))
}

// ArtifactFeedAfter implements lssync.ArtifactFeed.
func (m *MemLog) ArtifactFeedAfter(_ context.Context, after int64, limit int) ([]store.FeedEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if after < 0 || limit < 1 {
		return nil, fmt.Errorf("feed read after %d, limit %d", after, limit)
	}
	from := min(int(after), len(m.feed.entries))
	return slices.Clone(m.feed.entries[from:min(from+limit, len(m.feed.entries))]), nil
}

// ArtifactCursor implements lssync.ArtifactFeed.
func (m *MemLog) ArtifactCursor(_ context.Context, peer string) (store.FeedCursor, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.feed.cursors[peer]; ok {
		return c, nil
	}
	return store.FeedCursor{Peer: peer}, nil
}

// MissingArtifacts implements lssync.ArtifactFeed.
func (m *MemLog) MissingArtifacts(_ context.Context, ids []string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, id := range ids {
		if _, ok := m.artifacts[id]; !ok {
			out = append(out, id)
		}
	}
	return out, nil
}

// ArtifactsAdded implements lssync.ArtifactFeed.
func (m *MemLog) ArtifactsAdded() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.feed.wake == nil {
		m.feed.wake = make(chan struct{})
	}
	return m.feed.wake
}
