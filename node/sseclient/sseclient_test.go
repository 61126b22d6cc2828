package sseclient

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestReader_Frames(t *testing.T) {
	in := "id: evt_1\nevent: logstream\ndata: {\"a\": 1}\n\n: ping\n\n\n: cursor c1.x\n\ndata: one\ndata: two\n\n"
	r := NewReader(strings.NewReader(in))
	want := []Frame{
		{ID: "evt_1", Event: "logstream", Data: `{"a": 1}`},
		{Comments: []string{"ping"}},
		{Comments: []string{"cursor c1.x"}},
		{Data: "one\ntwo"},
	}
	for i, w := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("frame %d = %+v, want %+v", i, got, w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: err = %v, want io.EOF", err)
	}
	if !want[1].IsComment() || want[0].IsComment() {
		t.Fatal("IsComment wrong")
	}
}

func TestReader_TruncatedFrame(t *testing.T) {
	r := NewReader(strings.NewReader("id: evt_1\nevent: logstream\ndata: {"))
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}
