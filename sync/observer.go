package lssync

import (
	"time"

	"github.com/lsnode/lsnode/store"
)

// Observer receives what a Link measures, for its driver to export
// (sync/grpcpeer turns them into metrics). A Link without one
// (SetObserver) records nothing. It is called on the Link's goroutine and
// must not block.
type Observer interface {
	// Round counts a digest round this end answered: match is an idle
	// round (the vectors were equal).
	Round(match bool)
	// Applied counts the store's answer to a batch received by path
	// ("pull" or "push") and applied by the Link (a Link that applies
	// behind leaves the count to its driver: Link.ApplyBehind).
	Applied(path string, r store.ApplyResult)
	// ClockOffset records the offset measured to peer (peer minus local)
	// and whether it is beyond Config.MaxClockOffset.
	ClockOffset(peer string, offset time.Duration, skewed bool)
}

// SetObserver gives the link its Observer.
func (l *Link) SetObserver(o Observer) { l.obs = o }
