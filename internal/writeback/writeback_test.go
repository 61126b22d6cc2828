package writeback

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestWriter_WritesEveryByteInChunks writes 5 MiB and a bit in uneven
// pieces through 1 MiB chunks and reads back exactly what was written.
func TestWriter_WritesEveryByteInChunks(t *testing.T) {
	for _, chunk := range []int64{0, 4096, 1 << 20} {
		path := filepath.Join(t.TempDir(), "out")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		w := New(f, chunk)
		r := rand.New(rand.NewPCG(1, uint64(chunk)))
		var want bytes.Buffer
		for want.Len() < 5<<20+123 {
			p := make([]byte, 1+r.IntN(70_000))
			for i := range p {
				p[i] = byte(r.Uint32())
			}
			if n, err := w.Write(p); err != nil || n != len(p) {
				t.Fatalf("chunk %d: write: %d, %v", chunk, n, err)
			}
			want.Write(p)
		}
		if err := w.Sync(); err != nil {
			t.Fatalf("chunk %d: sync: %v", chunk, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("chunk %d: read back %d bytes, want the %d written", chunk, len(got), want.Len())
		}
	}
}

// TestWriter_TakesAFileWithoutHints writes through a pipe, which takes
// no writeback hints: the writes go on without them.
func TestWriter_TakesAFileWithoutHints(t *testing.T) {
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	done := make(chan []byte)
	go func() {
		var got bytes.Buffer
		_, _ = got.ReadFrom(r)
		done <- got.Bytes()
	}()
	w := New(pw, 4096)
	want := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	if _, err := w.Write(want); err != nil {
		t.Fatalf("write to a pipe: %v", err)
	}
	if err := w.buf.Flush(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if got := <-done; !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes from the pipe, want %d", len(got), len(want))
	}
	if w.hints {
		t.Errorf("hints still on after a pipe refused them")
	}
}
