package lssync

import (
	"time"
)

// clockState is the last offset measured to the peer. The local clock is
// never adjusted: the offset is only reported (PeerStatus, metric, log).
type clockState struct {
	offset time.Duration // peer minus local
	rtt    time.Duration
	known  bool
	skewed bool
}

// measure derives the offset from one exchange: this end sent at echo (its
// clock), the peer stamped sent (its clock), and the answer arrived at now.
// Assuming symmetric delays, offset = sent - (echo+now)/2, with an error
// of at most rtt/2.
func (l *Link) measure(echo, sent int64, now time.Time) {
	if echo == 0 || sent == 0 {
		return
	}
	rtt := now.UnixNano() - echo
	if rtt < 0 {
		return
	}
	l.setClock(time.Duration(sent-echo-rtt/2), time.Duration(rtt))
}

// setClock records a measurement, logs a transition into or out of the
// skewed state, and exports the offset.
//
// A peer is skewed only when the offset is beyond the bound by more than
// the measurement's error (rtt/2): an answer delayed on one leg, as a
// stalled process or a loaded machine gives, reads as an offset of up to
// half the round trip, and must not be reported as a wrong clock.
func (l *Link) setClock(offset, rtt time.Duration) {
	skewed := offset.Abs()-rtt/2 > l.cfg.MaxClockOffset
	if skewed != l.clock.skewed || !l.clock.known {
		l.logClock(offset, rtt, skewed)
	}
	l.clock = clockState{offset: offset, rtt: rtt, known: true, skewed: skewed}
	if l.obs != nil {
		l.obs.ClockOffset(l.peer, offset, skewed)
	}
}

func (l *Link) logClock(offset, rtt time.Duration, skewed bool) {
	attrs := []any{"peer", l.peer, "offset", offset, "rtt", rtt, "max_clock_offset", l.cfg.MaxClockOffset}
	switch {
	case skewed:
		l.logger.Warn("peer clock offset beyond the max clock offset; its ops are stored, the local clock is not moved", attrs...)
	case l.clock.skewed:
		l.logger.Info("peer clock offset back within bound", attrs...)
	}
}
