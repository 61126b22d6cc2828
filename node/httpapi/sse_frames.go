package httpapi

import (
	"bytes"
	"sync"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// sseFrameSlots is the number of recent frames sseFrames keeps: enough
// for every open stream to find the frames of the commits it is behind on
// while they tail the log together (~600 KiB of small events).
const sseFrameSlots = 1024

// sseFrames shares the rendering of events between the open SSE streams:
// every stream that tails the log writes the same frame for an event
// (the frame depends only on the event and on whether its body is a
// preview), so while several are open the first to write an event keeps
// its frame and the others copy it. Slots are direct-mapped by seq, so a
// lookup is one comparison; the zero value is ready to use.
type sseFrames struct {
	mu    sync.Mutex
	slots [sseFrameSlots]sseFrame
}

// sseFrame is one event's rendered frame; frame is never modified once
// stored.
type sseFrame struct {
	seq       int64
	id        string
	truncated bool
	frame     []byte
}

func (c *sseFrames) get(ev *store.Event) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := &c.slots[uint64(ev.Seq)%sseFrameSlots]
	if f.frame == nil || f.seq != ev.Seq || f.id != ev.ID || f.truncated != ev.BodyTruncated {
		return nil, false
	}
	return f.frame, true
}

func (c *sseFrames) put(ev *store.Event, frame []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots[uint64(ev.Seq)%sseFrameSlots] = sseFrame{seq: ev.Seq, id: ev.ID, truncated: ev.BodyTruncated, frame: frame}
}

// appendFrame appends ev's frame: its id, "event: logstream", and the
// event dict as json.dumps writes it on one data line.
func appendFrame(b []byte, ev *store.Event) ([]byte, error) {
	raw, err := ev.MarshalJSON()
	if err != nil {
		return b, err
	}
	start := len(b)
	b = append(append(append(b, "id: "...), ev.ID...), "\nevent: logstream\ndata: "...)
	if b, err = pyjson.AppendCompact(b, raw); err != nil {
		return b[:start], err
	}
	return append(b, "\n\n"...), nil
}

// appendSharedFrame appends ev's frame from the shared frames when
// another stream rendered it, else renders it and shares it when shared
// is set (more than one stream is open; a lone stream keeps no copies).
func (c *sseFrames) appendSharedFrame(b []byte, ev *store.Event, shared bool) ([]byte, error) {
	if shared {
		if f, ok := c.get(ev); ok {
			return append(b, f...), nil
		}
	}
	start := len(b)
	b, err := appendFrame(b, ev)
	if err == nil && shared {
		c.put(ev, bytes.Clone(b[start:]))
	}
	return b, err
}
