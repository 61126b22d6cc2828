package backupfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// The format's names.
const (
	Format        = "lsnode-backup"
	FormatVersion = 1
	ManifestName  = "manifest.json"
	DatabaseName  = "logstream.sqlite3"
	KeyName       = "node.key"
)

// maxManifestBytes and maxKeyBytes bound what a reader takes of the two
// small entries.
const (
	maxManifestBytes = 1 << 20
	maxKeyBytes      = 64 << 10
)

// Manifest describes a backup.
type Manifest struct {
	Format        string `json:"format"`
	FormatVersion int    `json:"format_version"`
	// CreatedAt is when the snapshot was taken (RFC 3339, UTC).
	CreatedAt     string `json:"created_at"`
	LsnodeVersion string `json:"lsnode_version"`
	// ReplicaID is the identity of the node backed up.
	ReplicaID string `json:"replica_id"`
	// VersionVector is the database's: the prefix of every origin it
	// holds.
	VersionVector map[string]int64 `json:"version_vector"`
	Events        int64            `json:"events"`
	Artifacts     int64            `json:"artifacts"`
	// Files lists the entries before the manifest, in stream order: the
	// database, then the key when the backup carries it.
	Files []File `json:"files"`
}

// File is one entry of the stream with its size and sha256 (hex).
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// HasKey reports whether the backup carries the node's signing key.
func (m Manifest) HasKey() bool {
	return slices.ContainsFunc(m.Files, func(f File) bool { return f.Name == KeyName })
}

// parseManifest decodes and checks a manifest: its format and version,
// and files naming the database first and at most the key besides.
func parseManifest(raw []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%s: %w", ManifestName, err)
	}
	switch {
	case m.Format != Format:
		return m, fmt.Errorf("%s: format %q, want %q", ManifestName, m.Format, Format)
	case m.FormatVersion != FormatVersion:
		return m, fmt.Errorf("%s: format version %d; this build reads version %d", ManifestName, m.FormatVersion, FormatVersion)
	case len(m.Files) == 0 || m.Files[0].Name != DatabaseName:
		return m, fmt.Errorf("%s: the first file must be %s", ManifestName, DatabaseName)
	case len(m.Files) > 2 || (len(m.Files) == 2 && m.Files[1].Name != KeyName):
		return m, fmt.Errorf("%s: files are %s and optionally %s", ManifestName, DatabaseName, KeyName)
	case m.VersionVector == nil:
		return m, errors.New(ManifestName + ": no version_vector")
	}
	return m, nil
}
