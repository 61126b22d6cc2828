package store

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// createdAtLayout is the Python hub's created_at format (UTC, seconds).
const createdAtLayout = "2006-01-02T15:04:05Z"

// newID mints an event or artifact id the way the Python hub does:
// <prefix>_<UTC YYYYmmddTHHMMSS>_<12 random hex digits>.
func newID(prefix string, now time.Time) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the runtime guarantees Read does not fail
	}
	return prefix + "_" + now.UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b[:])
}

func createdAt(now time.Time) string { return now.UTC().Format(createdAtLayout) }
