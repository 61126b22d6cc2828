package membership

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
)

// LoadKeyringFile reads gossip keys from path: one base64 key per line,
// the first being the primary (it encrypts; all keys decrypt). Blank lines
// and lines starting with '#' are skipped. Each key must decode to 16, 24
// or 32 bytes (AES-128, -192, -256). Generate one with
// `head -c 32 /dev/urandom | base64`.
func LoadKeyringFile(path string) ([][]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gossip key file: %w", err)
	}
	var keys [][]byte
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("%w: %s line %d is not base64", ErrInvalidKey, path, line)
		}
		if err := checkKeyLen(key); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		keys = append(keys, key)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("gossip key file %s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: %s holds no key", ErrInvalidKey, path)
	}
	return keys, nil
}

// parseKey decodes one base64 key and checks its length.
func parseKey(text string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return nil, fmt.Errorf("%w: not base64", ErrInvalidKey)
	}
	if err := checkKeyLen(key); err != nil {
		return nil, err
	}
	return key, nil
}

// encodeKeyringFile is the content of a key file holding keys, the
// primary first, in the format LoadKeyringFile reads.
func encodeKeyringFile(keys [][]byte) []byte {
	var b bytes.Buffer
	b.WriteString("# lsnode gossip keyring: the first key is the primary. Rewritten by `lsnode keys`.\n")
	for _, k := range keys {
		b.WriteString(base64.StdEncoding.EncodeToString(k))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// validateKeyring checks every key's length.
func validateKeyring(keys [][]byte) error {
	for i, k := range keys {
		if err := checkKeyLen(k); err != nil {
			return fmt.Errorf("keyring key %d: %w", i, err)
		}
	}
	return nil
}

func checkKeyLen(k []byte) error {
	switch len(k) {
	case 16, 24, 32:
		return nil
	}
	return fmt.Errorf("%w: %d bytes, want 16, 24 or 32 (AES-128, -192, -256)", ErrInvalidKey, len(k))
}
