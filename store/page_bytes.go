package store

// DefaultMaxPageBytes bounds the events one List, Wait or Owed page
// returns, by size (Config.MaxPageBytes): 8 MiB, as /sync/ops pages are.
// The count limit alone allows 500 events of 256 KiB bodies and 64 KiB of
// metadata each, about 160 MiB before JSON escaping.
const DefaultMaxPageBytes = 8 << 20

// eventOverheadBytes stands for an event's fields other than its body and
// metadata, and their JSON keys, in a page's size.
const eventOverheadBytes = 512

// pageFit is how many of evs, in order, fit in about budget bytes of
// bodies and metadata: at least one, so that a page always moves a reader
// forward; all of them when budget is not positive.
func pageFit(evs []Event, budget int) int {
	if budget <= 0 {
		return len(evs)
	}
	size := 0
	for i, e := range evs {
		size += len(e.Body) + len(e.Metadata) + eventOverheadBytes
		if i > 0 && size > budget {
			return i
		}
	}
	return len(evs)
}
