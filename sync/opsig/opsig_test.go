package opsig_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/opsig"
)

// testKey is a fixed key, so the golden vector is stable.
func testKey() ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("opsig golden key"))
	return ed25519.NewKeyFromSeed(seed[:])
}

func sampleEvent() (store.Event, map[string]string) {
	e := store.Event{
		ID: "evt_20260101T000000_0123456789ab", OriginReplica: "rep_0123456789ab", OriginSeq: 42,
		HLC: "0001767225600000-0000000003-rep_0123456789ab", Type: "patch.ready", Stream: "code", Room: "lsnode",
		Topic: "sync", FromAgent: "pi@laptop", ToAgent: "ci", CorrelationID: "corr-1", Branch: "main",
		BaseCommit: "abc123", Status: "applied", ArtifactIDs: []string{"art_b", "art_a"}, Body: "hello",
		CreatedAt: "2026-01-01T00:00:00Z", Metadata: json.RawMessage(`{"b": 1, "a": [true, null]}`),
	}
	return e, map[string]string{"art_a": "aa11", "art_b": "bb22"}
}

// TestGolden pins the encoding: a change of Content breaks every
// signature in the field, so it must come with a new Domain.
func TestGolden(t *testing.T) {
	e, d := sampleEvent()
	msg, err := opsig.Content(e, d)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(msg)
	if got, want := hex.EncodeToString(sum[:]), goldenContentSHA; got != want {
		t.Errorf("content sha256 = %s, want %s\ncontent: %q", got, want, msg)
	}
	sig, err := opsig.Sign(testKey(), e, d)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(sig); got != goldenSignature {
		t.Errorf("signature = %s, want %s", got, goldenSignature)
	}
	if err := verifyBoth(t, testKey().Public().(ed25519.PublicKey), e, d, sig); err != nil {
		t.Errorf("verify: %v", err)
	}
}

const (
	goldenContentSHA = "bf5aee005e7eb1f3f662a89d617c162aace6637e0c8ac6a0d300c4bd593edf3a"
	goldenSignature  = "38edc5a0fc47ef8a9b7ba4c78f96bb6dbfa30d89238e01daf39b22fac31c300b029f84bc1ba10bca8555f47635e64dd0b8d382ae5f2180f2e86fb29b57f1e00d"
)

// TestEveryFieldIsSigned changes each content field in turn (and each
// artifact digest) and expects the signature to no longer verify.
func TestEveryFieldIsSigned(t *testing.T) {
	key := testKey()
	pub := key.Public().(ed25519.PublicKey)
	e, d := sampleEvent()
	sig, err := opsig.Sign(key, e, d)
	if err != nil {
		t.Fatal(err)
	}
	unsigned := map[string]bool{"Seq": true, "BodyTruncated": true, "BodyLength": true}
	v := reflect.ValueOf(e)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if unsigned[name] {
			continue
		}
		changed := e
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch name {
		case "OriginSeq":
			changed.OriginSeq++
		case "ArtifactIDs":
			changed.ArtifactIDs = []string{"art_a"}
		case "Metadata":
			changed.Metadata = json.RawMessage(`{"b": 2, "a": [true, null]}`)
		default:
			f.SetString(f.String() + "x")
		}
		if err := verifyBoth(t, pub, changed, d, sig); !errors.Is(err, opsig.ErrBadSignature) {
			t.Errorf("changing %s: verify = %v, want ErrBadSignature", name, err)
		}
	}
	for id := range d {
		other := map[string]string{"art_a": d["art_a"], "art_b": d["art_b"]}
		other[id] = "ff00"
		if err := verifyBoth(t, pub, e, other, sig); !errors.Is(err, opsig.ErrBadSignature) {
			t.Errorf("changing the digest of %s: verify = %v, want ErrBadSignature", id, err)
		}
	}
	// Moving bytes between adjacent fields must not keep the signature
	// (the length prefixes).
	shifted := e
	shifted.Stream, shifted.Room = "cod", "elsnode"
	if err := verifyBoth(t, pub, shifted, d, sig); !errors.Is(err, opsig.ErrBadSignature) {
		t.Errorf("shifting a byte between fields: verify = %v, want ErrBadSignature", err)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if err := verifyBoth(t, other, e, d, sig); !errors.Is(err, opsig.ErrBadSignature) {
		t.Errorf("another key: verify = %v, want ErrBadSignature", err)
	}
}

// TestRelayFormsVerify: what a relay may legitimately change (metadata
// whitespace and key order, artifact id order and repeats, the local seq,
// a truncated preview flag) does not break the signature.
func TestRelayFormsVerify(t *testing.T) {
	key := testKey()
	e, d := sampleEvent()
	sig, err := opsig.Sign(key, e, d)
	if err != nil {
		t.Fatal(err)
	}
	relayed := e
	relayed.Seq = 99
	relayed.Metadata = json.RawMessage(`{"a":[true,null],"b":1.0}`)
	relayed.ArtifactIDs = []string{"art_a", "art_b", "art_a"}
	if err := verifyBoth(t, key.Public().(ed25519.PublicKey), relayed, d, sig); err != nil {
		t.Errorf("relayed form: %v", err)
	}
	noMeta := e
	noMeta.Metadata = nil
	sig2, err := opsig.Sign(key, noMeta, d)
	if err != nil {
		t.Fatal(err)
	}
	noMeta.Metadata = json.RawMessage(`{}`)
	if err := verifyBoth(t, key.Public().(ed25519.PublicKey), noMeta, d, sig2); err != nil {
		t.Errorf("absent metadata vs {}: %v", err)
	}
}

func TestUnsignable(t *testing.T) {
	e, _ := sampleEvent()
	if _, err := opsig.Sign(testKey(), e, map[string]string{"art_a": "aa"}); !errors.Is(err, opsig.ErrUnsignable) {
		t.Errorf("missing digest: %v, want ErrUnsignable", err)
	}
	e.Metadata = json.RawMessage(`{"a":`)
	if _, err := opsig.Sign(testKey(), e, map[string]string{"art_a": "aa", "art_b": "bb"}); !errors.Is(err, opsig.ErrUnsignable) {
		t.Errorf("bad metadata: %v, want ErrUnsignable", err)
	}
	e, d := sampleEvent()
	pub := testKey().Public().(ed25519.PublicKey)
	if err := verifyBoth(t, pub, e, d, []byte("short")); !errors.Is(err, opsig.ErrBadSignature) {
		t.Errorf("short signature: %v, want ErrBadSignature", err)
	}
	if err := opsig.Verify(pub[:5], e, d, make([]byte, ed25519.SignatureSize)); !errors.Is(err, opsig.ErrBadSignature) {
		t.Errorf("short key: %v, want ErrBadSignature", err)
	}
}

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), opsig.KeyFile)
	k1, minted, err := opsig.LoadOrMintKey(path)
	if err != nil || !minted {
		t.Fatalf("mint: minted=%v err=%v", minted, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("key file mode %o, want 600", mode)
	}
	k2, minted, err := opsig.LoadOrMintKey(path)
	if err != nil || minted {
		t.Fatalf("reload: minted=%v err=%v", minted, err)
	}
	if !k1.Equal(k2) {
		t.Error("reloaded key differs from the minted one")
	}
	good, _ := os.ReadFile(path)
	for name, body := range map[string][]byte{
		"garbage":      []byte("not a key"),
		"truncated":    good[:len(good)/2],
		"trailing":     append(append([]byte{}, good...), "junk"...),
		"other pem":    []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
		"empty":        nil,
		"bad pkcs8der": []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
	} {
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := opsig.LoadOrMintKey(path); !errors.Is(err, opsig.ErrCorruptKey) {
			t.Errorf("%s: err = %v, want ErrCorruptKey", name, err)
		}
		after, _ := os.ReadFile(path)
		if string(after) != string(body) {
			t.Errorf("%s: the corrupt file was rewritten", name)
		}
	}
}

func TestFingerprint(t *testing.T) {
	pub := testKey().Public().(ed25519.PublicKey)
	fp := opsig.Fingerprint(pub)
	if len(fp) != len("SHA256:")+43 || fp[:7] != "SHA256:" {
		t.Errorf("fingerprint %q has the wrong shape", fp)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if opsig.Fingerprint(other) == fp {
		t.Error("two keys share a fingerprint")
	}
}

// verifyBoth checks with Verify and with a Verifier of pub, which must
// agree, error text included; it returns Verify's error.
func verifyBoth(t *testing.T, pub ed25519.PublicKey, e store.Event, d map[string]string, sig []byte) error {
	t.Helper()
	err := opsig.Verify(pub, e, d, sig)
	v, verr := opsig.NewVerifier(pub)
	if verr != nil {
		t.Fatalf("NewVerifier: %v", verr)
	}
	if !v.PublicKey().Equal(pub) {
		t.Fatal("the verifier holds another key")
	}
	if got := v.Verify(e, d, sig); fmt.Sprint(got) != fmt.Sprint(err) || errors.Is(got, opsig.ErrBadSignature) != errors.Is(err, opsig.ErrBadSignature) {
		t.Fatalf("Verifier.Verify = %v, Verify = %v", got, err)
	}
	return err
}

func BenchmarkVerify(b *testing.B) {
	key := testKey()
	pub := key.Public().(ed25519.PublicKey)
	e, d := sampleEvent()
	sig, err := opsig.Sign(key, e, d)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=Verify", func(b *testing.B) {
		for b.Loop() {
			if err := opsig.Verify(pub, e, d, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=Verifier", func(b *testing.B) {
		v, err := opsig.NewVerifier(pub)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := v.Verify(e, d, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSign(b *testing.B) {
	key := testKey()
	e, d := sampleEvent()
	for b.Loop() {
		if _, err := opsig.Sign(key, e, d); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNewVerifierRefusesNonKeys(t *testing.T) {
	// y = 2 is the y of no curve point.
	for _, pub := range []ed25519.PublicKey{make([]byte, 5), append([]byte{2}, make([]byte, 31)...)} {
		if _, err := opsig.NewVerifier(pub); !errors.Is(err, opsig.ErrBadSignature) {
			t.Errorf("NewVerifier(%x) = %v, want ErrBadSignature", []byte(pub), err)
		}
	}
}
