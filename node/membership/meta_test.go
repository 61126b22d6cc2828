package membership

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/memberlist"
)

func TestMeta_RoundTrip(t *testing.T) {
	cases := []struct {
		name string
		meta Meta
	}{
		{"full", Meta{ReplicaID: "rep_0123456789abcdef0123456789abcdef", ClusterID: "prod",
			GRPCAddr: "10.0.0.1:7000", HTTPAddr: "10.0.0.1:8765", Version: "0.1.0"}},
		{"empty fields omitted", Meta{ClusterID: "c"}},
		{"zero", Meta{}},
		{"unicode", Meta{ClusterID: "grün", Version: "v1 ✓"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.meta.Encode()
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeMeta(b)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.meta {
				t.Fatalf("round trip = %+v, want %+v", got, tc.meta)
			}
		})
	}
}

// TestMeta_Format pins the v1 bytes: peers of other builds decode them.
func TestMeta_Format(t *testing.T) {
	b, err := Meta{ReplicaID: "r", ClusterID: "cc", Version: "v"}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{1, 1, 1, 'r', 2, 2, 'c', 'c', 5, 1, 'v'}
	if !bytes.Equal(b, want) {
		t.Fatalf("encoding = %v, want %v", b, want)
	}
}

func TestMeta_UnknownFieldSkipped(t *testing.T) {
	// A later build adds tag 9; this build keeps what it knows.
	b := []byte{1, 2, 1, 'c', 9, 3, 'x', 'y', 'z', 5, 1, 'v'}
	got, err := DecodeMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	if got != (Meta{ClusterID: "c", Version: "v"}) {
		t.Fatalf("decoded %+v", got)
	}
}

func TestDecodeMeta_Invalid(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "empty"},
		{"other version", []byte{2, 1, 1, 'r'}, "unsupported format version 2"},
		{"truncated value", []byte{1, 1, 5, 'r'}, "truncated"},
		{"truncated length", []byte{1, 1, 0x80}, "truncated"},
		{"tag without length", []byte{1, 1}, "truncated"},
		{"duplicate", []byte{1, 2, 1, 'a', 2, 1, 'b'}, "twice"},
		{"not utf-8", []byte{1, 2, 1, 0xff}, "UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeMeta(tc.in)
			if !errors.Is(err, ErrMetaInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrMetaInvalid mentioning %q", err, tc.want)
			}
		})
	}
}

func TestMeta_TooLarge(t *testing.T) {
	m := Meta{ClusterID: "c", Version: strings.Repeat("v", memberlist.MetaMaxSize)}
	_, err := m.Encode()
	if !errors.Is(err, ErrMetaTooLarge) || !strings.Contains(err.Error(), "limit is 512") {
		t.Fatalf("err = %v, want ErrMetaTooLarge naming the limit", err)
	}
	// The largest that fits: 1 version byte + tag + 2-byte varint + value.
	m.Version = strings.Repeat("v", memberlist.MetaMaxSize-1-3-4)
	if _, err := m.Encode(); err != nil {
		t.Fatalf("meta of exactly 512 bytes: %v", err)
	}
}

func FuzzDecodeMeta(f *testing.F) {
	seed, _ := Meta{ReplicaID: "rep_1", ClusterID: "c", GRPCAddr: "a:1", HTTPAddr: "b:2", Version: "v"}.Encode()
	f.Add(seed)
	f.Add([]byte{1})
	f.Add([]byte{1, 9, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMeta(b)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes (if it fits) to something that
		// decodes to the same value.
		enc, err := m.Encode()
		if err != nil {
			return
		}
		again, err := DecodeMeta(enc)
		if err != nil || again != m {
			t.Fatalf("re-decode of %+v: %+v, %v", m, again, err)
		}
	})
}

func TestMeta_LeavingFlag(t *testing.T) {
	m := Meta{ReplicaID: "r", ClusterID: "c"}
	b, err := encodeMeta(m, true)
	if err != nil {
		t.Fatal(err)
	}
	got, leaving, err := decodeMeta(b)
	if err != nil || !leaving || got != m {
		t.Fatalf("decodeMeta = %+v, %v, %v; want %+v, leaving", got, leaving, err, m)
	}
	if plain, _ := DecodeMeta(b); plain != m {
		t.Fatalf("DecodeMeta = %+v: the flag must not show in Meta", plain)
	}
	b, _ = m.Encode()
	if _, leaving, _ := decodeMeta(b); leaving {
		t.Fatal("Encode set the leaving flag")
	}
}
