package integrity

import "sync"

// ownSigCacheSize bounds the cache of this node's own signatures: about
// 100 bytes an entry, so ~6 MiB.
const ownSigCacheSize = 1 << 16

// sigCache keeps the signatures of this node's most recently signed own
// ops by origin_seq, so an op served to several peers (each follower's
// push, each catching-up peer's pull) is signed once. An own slot holds
// one op for the life of the process, so the key is enough. Oldest
// entries are evicted first.
type sigCache struct {
	mu   sync.Mutex
	sigs map[int64][]byte
	ring []int64 // insertion order, a circular buffer of keys
	next int
}

func newSigCache(size int) *sigCache {
	return &sigCache{sigs: make(map[int64][]byte, size), ring: make([]int64, 0, size)}
}

func (c *sigCache) get(seq int64) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sigs[seq]
}

func (c *sigCache) put(seq int64, sig []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.sigs[seq]; ok {
		return
	}
	if len(c.ring) < cap(c.ring) {
		c.ring = append(c.ring, seq)
	} else {
		delete(c.sigs, c.ring[c.next])
		c.ring[c.next] = seq
		c.next = (c.next + 1) % len(c.ring)
	}
	c.sigs[seq] = sig
}
