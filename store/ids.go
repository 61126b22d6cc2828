package store

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// createdAtLayout is the Python hub's created_at format (UTC, seconds).
const createdAtLayout = "2006-01-02T15:04:05Z"

// idSuffixMask keeps an id's suffix to the 48 bits of its 12 hex digits.
const idSuffixMask = 1<<48 - 1

// localIDs mints the ids of local events and artifacts.
var localIDs idMinter

// idMinter mints ids in the Python hub's format,
// <prefix>_<UTC YYYYmmddTHHMMSS>_<12 hex digits>, but with ULID's
// "monotonic" idea: the first id of each second takes a random 48-bit
// suffix and the ids after it in the same second count up from there.
//
// Two things follow. Ids minted in one second sort in minting order, so
// the primary-key indexes of events, owed and closure rows grow at one
// end instead of taking a random leaf page per insert (a group commit of
// 32 appends wrote ~118 WAL pages with random suffixes). And no two ids
// of one process collide, while across replicas a collision needs two
// random 48-bit starts within one second's count of each other, which is
// less likely than a birthday collision among random suffixes.
type idMinter struct {
	mu     sync.Mutex
	second int64  // unix second of the last id minted
	next   uint64 // suffix of the next id in that second
}

// newID mints an event ("evt") or artifact ("art") id stamped now.
func newID(prefix string, now time.Time) string {
	return prefix + "_" + now.UTC().Format("20060102T150405") + "_" + localIDs.suffix(now.Unix())
}

func (m *idMinter) suffix(second int64) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if second != m.second {
		m.second, m.next = second, randomSuffix()
	}
	s := m.next
	m.next = (m.next + 1) & idSuffixMask
	return fmt.Sprintf("%012x", s)
}

func randomSuffix() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the runtime guarantees Read does not fail
	}
	return binary.LittleEndian.Uint64(b[:]) & idSuffixMask
}

func createdAt(now time.Time) string { return now.UTC().Format(createdAtLayout) }
