package store

// Subscription delivers committed ops (local and applied) in commit order.
// It never slows the writer: when its buffer is full it is marked lagged
// and closed, and its owner falls back to pulling ranges.
type Subscription struct {
	s      *Store
	ch     chan []Op
	lagged bool
	closed bool
}

// Subscribe registers a subscription holding up to buffer pending batches.
func (s *Store) Subscribe(buffer int) *Subscription {
	if buffer < 1 {
		buffer = 1
	}
	sub := &Subscription{s: s, ch: make(chan []Op, buffer)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		sub.closeLocked()
		return sub
	}
	s.mu.subs[sub] = struct{}{}
	return sub
}

// C is the channel of committed batches; it is closed when the
// subscription ends (Close, lag, or store close).
func (sub *Subscription) C() <-chan []Op { return sub.ch }

// Lagged reports whether the subscription was dropped for falling behind.
func (sub *Subscription) Lagged() bool {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	return sub.lagged
}

// Close ends the subscription.
func (sub *Subscription) Close() {
	sub.s.mu.Lock()
	defer sub.s.mu.Unlock()
	delete(sub.s.mu.subs, sub)
	sub.closeLocked()
}

func (sub *Subscription) closeLocked() {
	if !sub.closed {
		sub.closed = true
		close(sub.ch)
	}
}

// fanOutLocked hands ops to every subscriber without blocking.
func (s *Store) fanOutLocked(ops []Op) {
	for sub := range s.mu.subs {
		select {
		case sub.ch <- ops:
		default:
			sub.lagged = true
			delete(s.mu.subs, sub)
			sub.closeLocked()
			s.metrics.subscriptionsLagged.Inc()
		}
	}
}
