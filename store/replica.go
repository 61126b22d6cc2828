package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// ReplicaFile is the name of the replica identity file in a data dir.
const ReplicaFile = "replica.json"

var replicaIDPattern = regexp.MustCompile(`^rep_(?:[0-9a-f]{12}|[0-9a-f]{32})$`)

// replicaFile is replica.json as the Python hub writes it (docs/compatibility.md#storage-and-file-format).
type replicaFile struct {
	ReplicaID    string `json:"replica_id"`
	MintedAtNote string `json:"minted_at_note"`
}

// LoadOrMintReplicaID returns the replica id stored in dir/replica.json,
// minting and writing a new 32-hex id when the file is absent. A corrupt
// or invalid file is refused rather than replaced, because a second
// identity for the same data would fork its origin.
func LoadOrMintReplicaID(dir string) (string, error) {
	path := filepath.Join(dir, ReplicaFile)
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return mintReplicaID(path)
	case err != nil:
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	var f replicaFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return "", fmt.Errorf("%w: %s is corrupt (%v); refusing to mint a second replica identity for this palace — restore or delete the file explicitly",
			ErrCorruptReplica, path, err)
	}
	if !replicaIDPattern.MatchString(f.ReplicaID) {
		return "", fmt.Errorf("%w: %s holds an invalid replica_id %s; refusing to mint a second identity — restore or delete the file explicitly",
			ErrCorruptReplica, path, rules.Repr(f.ReplicaID))
	}
	return f.ReplicaID, nil
}

// ValidReplicaID reports whether id has the replica id format.
func ValidReplicaID(id string) bool { return replicaIDPattern.MatchString(id) }

func mintReplicaID(path string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mint replica id: %w", err)
	}
	id := "rep_" + hex.EncodeToString(b[:])
	body, err := json.MarshalIndent(replicaFile{ReplicaID: id, MintedAtNote: "RFC 004 step 0"}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode replica id: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(body, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("install %s: %w", path, err)
	}
	return id, nil
}
