package hlc

import "time"

const (
	localRep  = "rep_000000000001"
	remoteRep = "rep_000000000002"
)

// msTime is the wall time at Unix millisecond ms.
func msTime(ms int64) time.Time { return time.UnixMilli(ms) }

// stamp builds a Timestamp.
func stamp(ms int64, counter uint32, replica string) Timestamp {
	return Timestamp{WallMS: ms, Counter: counter, Replica: replica}
}
