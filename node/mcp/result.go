package mcp

import "github.com/lsnode/lsnode/internal/jsonstr"

// toolResult is a tool's answer as every path sends it: the text of its
// one text content, as the hub writes it (text, or the pieces of a page
// of events); whether the client's era gets the same object as its
// structuredContent (wantsStructured); and whether it reports a failure
// (isError).
type toolResult struct {
	text       []byte
	page       pagePieces // a page of events, when text is nil
	structured bool
	failed     bool
}

// appendText appends the result's text.
func (r *toolResult) appendText(dst []byte) []byte {
	if r.page != nil {
		return r.page.appendText(dst)
	}
	return append(dst, r.text...)
}

// appendQuoted appends the text as the characters of a JSON string, as
// the SDK's frame escapes them (jsonstr.AppendChars, HTML escaped).
func (r *toolResult) appendQuoted(dst []byte) []byte {
	if r.page != nil {
		return r.page.appendQuoted(dst)
	}
	return jsonstr.AppendChars(dst, r.text, true)
}

// appendStructured appends the structured content (structuredOf).
func (r *toolResult) appendStructured(dst []byte) []byte {
	if r.page != nil {
		return r.page.appendStructured(dst)
	}
	return appendStructured(dst, r.text)
}

// size bounds the text's length, for sizing a buffer.
func (r *toolResult) size() int {
	if r.page != nil {
		return r.page.size()
	}
	return len(r.text)
}
