// Package sseclient reads a Server-Sent Events stream frame by frame, as
// /logstream/stream writes it: "id:", "event:" and "data:" fields, comment
// lines starting with ":", and a blank line ending each frame. It is the
// reading half shared by the CLI's tail, the node's tests and e2e.
package sseclient

import (
	"bufio"
	"io"
	"strings"
)

// Frame is one dispatched block of a stream. A block of comments alone
// (": ping") is a frame with no Event and no Data.
type Frame struct {
	ID       string   // the id: field; "" when absent
	Event    string   // the event: field
	Data     string   // data: lines joined by "\n"
	Comments []string // comment lines without the leading ":" and one space
}

// IsComment reports whether the frame carries only comments.
func (f Frame) IsComment() bool { return f.Event == "" && f.Data == "" && f.ID == "" }

// Reader reads frames from a stream.
type Reader struct {
	r *bufio.Reader
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Next returns the next frame. It returns io.EOF at a clean end of stream
// and io.ErrUnexpectedEOF when the stream ends inside a frame.
func (r *Reader) Next() (Frame, error) {
	var f Frame
	var data []string
	started := false
	for {
		line, err := r.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && (started || line != "") {
				return f, io.ErrUnexpectedEOF
			}
			return f, err
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if !started {
				continue
			}
			f.Data = strings.Join(data, "\n")
			return f, nil
		}
		started = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			f.Comments = append(f.Comments, value)
		case "id":
			f.ID = value
		case "event":
			f.Event = value
		case "data":
			data = append(data, value)
		}
	}
}
