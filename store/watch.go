package store

// A Watch wakes its owner at the first commit holding an event that its
// filter could return: the filter's field conditions, to_agent and read
// scope, not its position (a wake after the position is spurious and
// costs one read). Waits and streams used to wake at every commit and
// re-read their filter, so N idle waiters cost N reads per commit.
type Watch struct {
	s     *Store
	match func(*Event) bool
	ch    chan struct{} // closed at the wake; nil while not armed
}

// NewWatch compiles f (validated as List validates it) into a watch.
func (s *Store) NewWatch(f Filter) (*Watch, error) {
	c, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	return s.watchOf(c), nil
}

func (s *Store) watchOf(c *compiled) *Watch {
	eq, to := c.eq, c.to
	return &Watch{s: s, match: func(e *Event) bool {
		return (to == "" || e.ToAgent == to || e.ToAgent == "*") && eq.matches(e)
	}}
}

// Arm returns a channel closed at the next commit that holds a matching
// event. Arm before reading, so that no commit between the read and the
// wait is missed; arming again replaces the previous channel.
func (w *Watch) Arm() <-chan struct{} {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
		if w.s.mu.closed {
			close(w.ch) // a closed store wakes everyone
		} else {
			w.s.mu.watches[w] = struct{}{}
		}
	}
	return w.ch
}

// Close forgets the watch.
func (w *Watch) Close() {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	delete(w.s.mu.watches, w)
}

// wakeLocked wakes every armed watch that one of ops matches.
func (s *Store) wakeLocked(ops []Op) {
	for w := range s.mu.watches {
		for i := range ops {
			if w.match(&ops[i].Event) {
				w.fire()
				delete(s.mu.watches, w)
				break
			}
		}
	}
}

// fire closes the armed channel; the next Arm makes a new one.
func (w *Watch) fire() {
	close(w.ch)
	w.ch = nil
}
