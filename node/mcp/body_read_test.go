package mcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBody: readLimited returns the whole body up to the limit, whatever
// the announced size and however the reader splits it, and limit+1 bytes
// of a longer one.
func TestReadBody(t *testing.T) {
	const limit = 1000
	for _, tc := range []struct {
		name      string
		length    int
		size      int64 // announced; -1 none
		wantBytes int
	}{
		{"empty", 0, 0, 0},
		{"empty, unannounced", 0, -1, 0},
		{"announced", 300, 300, 300},
		{"unannounced", 300, -1, 300},
		{"unannounced, past the first buffer", 900, -1, 900},
		{"at the limit", limit, limit, limit},
		{"at the limit, unannounced", limit, -1, limit},
		{"past the limit, announced", limit + 50, limit + 50, limit + 1},
		{"past the limit, unannounced", 5 * limit, -1, limit + 1},
		{"longer than announced", 400, 300, 400},
		{"shorter than announced", 200, 300, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(strings.Repeat("0123456789", tc.length/10+1)[:tc.length])
			for name, r := range map[string]io.Reader{
				"whole":    bytes.NewReader(data),
				"one byte": iotest.OneByteReader(bytes.NewReader(data)),
				"data+EOF": iotest.DataErrReader(bytes.NewReader(data)),
			} {
				got, err := readLimited(r, tc.size, limit)
				if err != nil || !bytes.Equal(got, data[:tc.wantBytes]) {
					t.Fatalf("%s: %d bytes, %v; want %d", name, len(got), err, tc.wantBytes)
				}
			}
		})
	}
	broken := errors.New("connection reset")
	if _, err := readLimited(iotest.ErrReader(broken), 10, limit); !errors.Is(err, broken) {
		t.Fatalf("read error: %v", err)
	}
}
