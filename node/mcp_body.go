package node

import (
	"bytes"
	"io"
)

// readBody reads a request body of at most limit bytes, in one buffer of
// the announced size when there is one (size: Content-Length, or -1):
// a body longer than limit comes back with limit+1 bytes, for the caller
// to refuse.
func readBody(r io.Reader, size, limit int64) ([]byte, error) {
	if size < 0 || size > limit {
		size = 512
	}
	buf := make([]byte, 0, size+1) // one spare byte sees the end without growing
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit+1)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return buf, nil
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// bufferedBody is a request body already read into memory (by the MCP
// mount), which the MCP handler takes as it is instead of reading and
// copying it again.
type bufferedBody struct {
	bytes.Reader
	data []byte
}

func newBufferedBody(data []byte) *bufferedBody {
	b := &bufferedBody{data: data}
	b.Reset(data)
	return b
}

func (*bufferedBody) Close() error { return nil }
