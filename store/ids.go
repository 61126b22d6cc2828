package store

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

// idCounterBits of an id's 48-bit suffix count up within a second; the
// rest are random.
const (
	idCounterBits = 24
	idRandomBits  = 48 - idCounterBits
	idCounterMask = 1<<idCounterBits - 1
)

// localIDs mints the ids of local events and artifacts.
var localIDs idMinter

// idMinter mints ids in the Python hub's format,
// <prefix>_<UTC YYYYmmddTHHMMSS>_<12 hex digits>, with ULID's "monotonic"
// idea in the upper half of the 12 digits: the first id of each second
// takes a random counter and the ids after it in the same second count up
// from there; the lower half stays random for every id.
//
// Ids minted in one second then sort in minting order, so the primary-key
// indexes of events and of their derived rows grow at one end instead of
// taking a random leaf page per insert (a group commit of 32 appends wrote
// ~118 WAL pages with wholly random suffixes, 54 with these). No two ids
// of one process collide, two replicas collide only if their counters
// overlap in the same second and 24 random bits agree, and an id seen
// still does not tell its neighbours' ids: each hides 24 random bits.
type idMinter struct {
	mu      sync.Mutex
	second  int64  // unix second of the last id minted
	counter uint64 // counter of the next id in that second
}

// newID mints an event ("evt") or artifact ("art") id stamped now.
func newID(prefix string, now time.Time) string {
	return prefix + "_" + now.UTC().Format(pytime.IDLayout) + "_" + localIDs.suffix(now.Unix())
}

func (m *idMinter) suffix(second int64) string {
	m.mu.Lock()
	if second != m.second {
		m.second, m.counter = second, randomBits(idCounterBits)
	}
	c := m.counter
	m.counter = (m.counter + 1) & idCounterMask
	m.mu.Unlock()
	return fmt.Sprintf("%012x", c<<idRandomBits|randomBits(idRandomBits))
}

// randomBits returns n (at most 64) bits from crypto/rand.
func randomBits(n int) uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the runtime guarantees Read does not fail
	}
	return binary.LittleEndian.Uint64(b[:]) >> (64 - n)
}

func createdAt(now time.Time) string { return pytime.UTC(now) }
