package mcp

import (
	"bytes"
	"sync"

	"github.com/lsnode/lsnode/internal/jsonstr"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// A page of events (list, wait and search answers) is most of what the
// tools send: 50 events are ~36 KB of text. Events never change once
// stored, and agents re-read the same newest events, so each event is
// rendered once, in the three forms an answer takes, and kept; a page is
// then pieces, its members' own around the cached events', which the
// answer copies into its frame: byte for byte what pyjson writes of the
// whole page (TestPageTextIsPyjsons), and no text is rendered, escaped or
// compacted a second time.

// pageEventsKey is the member of a page that holds its events.
const pageEventsKey = "events"

// Bytes of the page text around one event: the event is rendered at the
// depth of a page's events, so exactly as inside a page, nesting limit
// included.
const (
	eventLead  = "{\n  \"events\": [\n    "
	eventTrail = "\n  ]\n}"
)

// piece is one part of a page in the three forms: the text as the hub
// writes it, the same as the characters of a JSON string (the frame's
// "text" member), and its structured form (structuredOf).
type piece struct {
	text, quoted, structured []byte
}

func newPiece(text []byte) piece {
	return piece{text: text, quoted: jsonstr.AppendChars(nil, text, true), structured: structuredOf(text)}
}

func (p piece) size() int { return len(p.text) + len(p.quoted) + len(p.structured) }

// pagePieces are the pieces of a page, in order.
type pagePieces []piece

func (ps pagePieces) appendText(dst []byte) []byte {
	dst = growFor(dst, ps, func(p piece) []byte { return p.text })
	for _, p := range ps {
		dst = append(dst, p.text...)
	}
	return dst
}

func (ps pagePieces) appendQuoted(dst []byte) []byte {
	dst = growFor(dst, ps, func(p piece) []byte { return p.quoted })
	for _, p := range ps {
		dst = append(dst, p.quoted...)
	}
	return dst
}

func (ps pagePieces) appendStructured(dst []byte) []byte {
	dst = growFor(dst, ps, func(p piece) []byte { return p.structured })
	for _, p := range ps {
		dst = append(dst, p.structured...)
	}
	return dst
}

// size is the length of the text.
func (ps pagePieces) size() int {
	n := 0
	for _, p := range ps {
		n += len(p.text)
	}
	return n
}

// growFor makes room in dst for the form form of every piece.
func growFor(dst []byte, ps pagePieces, form func(piece) []byte) []byte {
	n := 0
	for _, p := range ps {
		n += len(form(p))
	}
	if cap(dst)-len(dst) < n {
		dst = append(make([]byte, 0, len(dst)+n), dst...)
	}
	return dst
}

// The pieces between a page's members and events.
var (
	pageOpen        = newPiece([]byte("{"))
	pageClose       = newPiece([]byte("\n}"))
	memberSep       = newPiece([]byte(","))
	eventsOpen      = newPiece([]byte("["))
	eventsClose     = newPiece([]byte("\n  ]"))
	eventSep        = newPiece([]byte(","))
	eventIndent     = newPiece([]byte("\n    "))
	emptyPageObject = newPiece([]byte("{}"))
)

// eventKey names a rendering: an event's id, and whether it is a
// preview's copy with a cut body.
type eventKey struct {
	id        string
	truncated bool
}

// eventTexts caches the pieces of events, within budget bytes; a full
// cache drops arbitrary entries (Go's map order) for a new one, which
// keeps a share of a cyclic working set larger than the cache.
type eventTexts struct {
	mu     sync.RWMutex
	budget int
	used   int
	m      map[eventKey]piece
}

// eventTextsBudget is the memory the node gives the cache: the three
// forms of about 15,000 short events.
const eventTextsBudget = 32 << 20

func newEventTexts(budget int) *eventTexts {
	return &eventTexts{budget: budget, m: map[eventKey]piece{}}
}

// get returns e's piece, rendering and keeping it on a miss.
func (c *eventTexts) get(e *store.Event) (piece, error) {
	key := eventKey{id: e.ID, truncated: e.BodyTruncated}
	c.mu.RLock()
	p, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return p, nil
	}
	page, err := pyjson.DumpsIndent(pyjson.Object{{Key: pageEventsKey, Value: []any{*e}}})
	if err != nil {
		return piece{}, err
	}
	p = newPiece(page[len(eventLead) : len(page)-len(eventTrail)])
	c.put(key, p)
	return p, nil
}

func (c *eventTexts) put(key eventKey, p piece) {
	size := len(key.id) + p.size()
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, held := c.m[key]; held {
		return
	}
	for k, old := range c.m {
		if c.used+size <= c.budget {
			break
		}
		delete(c.m, k)
		c.used -= len(k.id) + old.size()
	}
	c.m[key] = p
	c.used += size
}

// renderedPage is a page answer (eventpage.Render's object), which the
// tools' text rendering splices from the cache instead of encoding it
// whole.
type renderedPage struct{ pyjson.Object }

// pieces are the page's pieces: the members as pyjson.DumpsIndent writes
// the object, the events from the cache.
func (p renderedPage) pieces(cache *eventTexts) (pagePieces, error) {
	if len(p.Object) == 0 {
		return pagePieces{emptyPageObject}, nil
	}
	out := make(pagePieces, 0, 2*len(p.Object)+3)
	out = append(out, pageOpen)
	for i, m := range p.Object {
		if i > 0 {
			out = append(out, memberSep)
		}
		key, _ := pyjson.DumpsIndent(m.Key) // a string always encodes
		out = append(out, newPiece(append(append([]byte("\n  "), key...), ": "...)))
		events, isEvents := m.Value.([]any)
		if m.Key != pageEventsKey || !isEvents || len(events) == 0 {
			value, err := pyjson.DumpsIndent(m.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, newPiece(bytes.ReplaceAll(value, []byte("\n"), []byte("\n  "))))
			continue
		}
		out = append(out, eventsOpen)
		for j, v := range events {
			e := v.(store.Event) // eventpage.Render's events are store.Events
			ev, err := cache.get(&e)
			if err != nil {
				return nil, err
			}
			if j > 0 {
				out = append(out, eventSep)
			}
			out = append(out, eventIndent, ev)
		}
		out = append(out, eventsClose)
	}
	return append(out, pageClose), nil
}
