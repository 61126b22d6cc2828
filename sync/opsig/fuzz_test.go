package opsig_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/opsig"
)

// FuzzLoadKey: whatever node.key holds, loading it either returns an
// ed25519 key or fails with ErrCorruptKey, and never rewrites the file.
func FuzzLoadKey(f *testing.F) {
	der, err := x509.MarshalPKCS8PrivateKey(testKey())
	if err != nil {
		f.Fatal(err)
	}
	good := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	f.Add(good)
	f.Add(good[:len(good)-10])
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\n\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		path := filepath.Join(t.TempDir(), opsig.KeyFile)
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		key, minted, err := opsig.LoadOrMintKey(path)
		if minted {
			t.Fatal("minted a key over an existing file")
		}
		if err != nil {
			if !errors.Is(err, opsig.ErrCorruptKey) {
				t.Fatalf("error %v is not ErrCorruptKey", err)
			}
		} else if len(key) != ed25519.PrivateKeySize {
			t.Fatalf("loaded a %d-byte key", len(key))
		}
		after, _ := os.ReadFile(path)
		if string(after) != string(body) {
			t.Fatal("the key file was rewritten")
		}
	})
}

// FuzzSignVerify: for any op content, a signature verifies, and the same
// signature with one bit flipped, or over content with the body changed,
// does not.
func FuzzSignVerify(f *testing.F) {
	f.Add("evt_1", "rep_0123456789ab", int64(1), "body", `{"a": 1}`, "art_1", "ab12", uint(3))
	f.Add("", "", int64(-5), "", "", "", "", uint(0))
	f.Add("evt_2", "rep_x", int64(1<<62), "ünïcode\x00", `{"_lsnode": {"ctx": {"rep_x": 3}}}`, "a", "", uint(511))
	key := testKey()
	pub := key.Public().(ed25519.PublicKey)
	f.Fuzz(func(t *testing.T, id, origin string, seq int64, body, meta, art, sha string, bit uint) {
		e := store.Event{ID: id, OriginReplica: origin, OriginSeq: seq, Body: body, Metadata: json.RawMessage(meta)}
		digests := map[string]string{}
		if art != "" {
			e.ArtifactIDs = []string{art}
			digests[art] = sha
		}
		sig, err := opsig.Sign(key, e, digests)
		if err != nil {
			if !errors.Is(err, opsig.ErrUnsignable) {
				t.Fatalf("sign: %v is not ErrUnsignable", err)
			}
			return
		}
		if err := opsig.Verify(pub, e, digests, sig); err != nil {
			t.Fatalf("verify own signature: %v", err)
		}
		flipped := append([]byte(nil), sig...)
		flipped[bit%uint(len(flipped)*8)/8] ^= 1 << (bit % 8)
		if err := opsig.Verify(pub, e, digests, flipped); !errors.Is(err, opsig.ErrBadSignature) {
			t.Fatalf("flipped bit %d: verify = %v", bit, err)
		}
		e.Body += "x"
		if err := opsig.Verify(pub, e, digests, sig); !errors.Is(err, opsig.ErrBadSignature) {
			t.Fatalf("changed body: verify = %v", err)
		}
	})
}
