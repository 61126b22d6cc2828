package opsig

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// KeyFile is the name of a node's signing key in its data dir.
const KeyFile = "node.key"

// ErrCorruptKey marks a key file that cannot be trusted. It is refused,
// never replaced: a new key would make every peer that pinned the old one
// refuse this node's ops.
var ErrCorruptKey = errors.New("corrupt node key")

const pemType = "PRIVATE KEY"

// LoadOrMintKey returns the ed25519 key in path (PKCS #8, PEM), minting
// and writing a new one (mode 0600) when the file is absent; minted
// reports which. A file that does not hold an ed25519 key is refused.
func LoadOrMintKey(path string) (key ed25519.PrivateKey, minted bool, err error) {
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		key, err := mintKey(path)
		return key, err == nil, err
	case err != nil:
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	key, err = parseKey(raw)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s: %v; refusing to mint a second key for this node (peers pinned the first) — restore the file, or delete it to start a new identity that peers will refuse",
			ErrCorruptKey, path, err)
	}
	return key, false, nil
}

func parseKey(raw []byte) (ed25519.PrivateKey, error) {
	block, rest := pem.Decode(raw)
	if block == nil || block.Type != pemType {
		return nil, fmt.Errorf("no %q PEM block", pemType)
	}
	if len(block.Headers) > 0 || len(trimSpace(rest)) > 0 {
		return nil, errors.New("unexpected data around the PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("key is a %T, want ed25519", k)
	}
	return ek, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == '\n' || b[0] == '\r' || b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func mintKey(path string) (ed25519.PrivateKey, error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("mint node key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode node key: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der}), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("install %s: %w", path, err)
	}
	return key, nil
}

// Fingerprint names a public key as SSH does: "SHA256:" and the unpadded
// base64 of the key's sha256.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}
