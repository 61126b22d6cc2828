package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReplicaFile reads any bytes as replica.json: an accepted file names
// a valid replica id, the one encoding/json reads from its replica_id;
// a refused one is ErrCorruptReplica with one of the two documented
// texts; either way the file is left exactly as it was (a second identity
// is never minted over an unreadable one). A minted file reads back as
// the id minted.
func FuzzReplicaFile(f *testing.F) {
	for _, seed := range []string{
		`{"replica_id": "rep_0123456789abcdef0123456789abcdef", "minted_at_note": "RFC 004 step 0"}`,
		`{"replica_id": "rep_0123456789ab"}`,
		`{"replica_id": "rep_0123456789AB"}`,
		`{"replica_id": "rep_0123456789abc"}`,
		`{"replica_id": 7}`,
		`{"replica_id": "rep_0123456789ab", "replica_id": "x"}`,
		`{"REPLICA_ID": "rep_0123456789ab"}`,
		`{"replica_id": "rep_0123456789ab\n"}`,
		`{}`,
		`null`,
		`[]`,
		``,
		"\xff",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, ReplicaFile)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		id, err := LoadOrMintReplicaID(dir)
		after, rerr := os.ReadFile(path)
		if rerr != nil || !bytes.Equal(after, raw) {
			t.Fatalf("replica.json %q changed to %q (%v)", raw, after, rerr)
		}
		if err != nil {
			text := err.Error()
			if !errors.Is(err, ErrCorruptReplica) || id != "" ||
				!(strings.Contains(text, path+" is corrupt (") && strings.HasSuffix(text, "refusing to mint a second replica identity for this palace — restore or delete the file explicitly") ||
					strings.Contains(text, path+" holds an invalid replica_id ") && strings.HasSuffix(text, "refusing to mint a second identity — restore or delete the file explicitly")) {
				t.Fatalf("%q: undocumented refusal %q (id %q)", raw, text, id)
			}
			return
		}
		var want replicaFile
		if json.Unmarshal(raw, &want) != nil || want.ReplicaID != id || !ValidReplicaID(id) {
			t.Fatalf("%q accepted as %q", raw, id)
		}
	})
}

func TestReplicaFile_MintThenLoad(t *testing.T) {
	dir := t.TempDir()
	minted, err := LoadOrMintReplicaID(dir)
	if err != nil || !ValidReplicaID(minted) || len(minted) != len("rep_")+32 {
		t.Fatalf("mint: %q %v", minted, err)
	}
	again, err := LoadOrMintReplicaID(dir)
	if err != nil || again != minted {
		t.Fatalf("load after mint: %q %v, minted %q", again, err, minted)
	}
}
