package lssync

// OwnOriginPuller is implemented by a Log that, for a while, pulls its
// own origin from peers like any other origin: a node restored from a
// backup under its own replica id takes back the ops of its origin that
// its peers hold and the backup lacks, before it numbers a new one
// (store.Store.PullsOwnOrigin; docs/operations.md). A Link otherwise never
// asks a peer for its own origin.
type OwnOriginPuller interface {
	PullsOwnOrigin() bool
}

// skipOrigin is the origin the link does not pull: its own, unless its
// Log is pulling it back ("" then).
func (l *Link) skipOrigin() string {
	if p, ok := l.log.(OwnOriginPuller); ok && p.PullsOwnOrigin() {
		return ""
	}
	return l.self
}
