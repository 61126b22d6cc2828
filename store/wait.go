package store

import (
	"context"
	"time"
)

// Wait returns the events List would return as soon as there is at least
// one, waiting up to timeout. It wakes on commits holding an event its
// filter could match (no polling) and holds no thread or connection while
// it waits. timedOut reports an empty
// result after the timeout; a timeout is not an error.
func (s *Store) Wait(ctx context.Context, f Filter, timeout time.Duration) (ListResult, bool, error) {
	c, err := compileFilter(f)
	if err != nil {
		return ListResult{}, false, err
	}
	if f.Order == "" && !(c.since != "" || c.cursor != nil || f.AfterSeq > 0) {
		c.order = "asc" // wait returns the oldest matches first, as the Python hub does
	}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	watch := s.watchOf(c)
	defer watch.Close()
	for {
		woken := watch.Arm() // before the read, so no commit is missed
		res, err := s.list(ctx, c)
		if err != nil {
			return ListResult{}, false, err
		}
		if len(res.Events) > 0 {
			return res, false, nil
		}
		select {
		case <-woken:
		case <-waitCtx.Done():
			if err := ctx.Err(); err != nil {
				return ListResult{}, false, err
			}
			res.Events = []Event{}
			return res, true, nil
		case <-s.stop:
			return ListResult{}, false, ErrClosed
		}
	}
}
