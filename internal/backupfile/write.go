package backupfile

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Source is a file to put in a backup under Name (DatabaseName or
// KeyName).
type Source struct {
	Name, Path string
}

// Writer writes one backup: its files, then its manifest.
type Writer struct {
	m       Manifest
	sources []Source
	modTime time.Time
	size    int64
}

// New prepares the backup of sources (the database, then optionally the
// key) described by m, whose Files it fills in. The files must not
// change until WriteTo has run.
func New(m Manifest, sources []Source) (*Writer, error) {
	m.Format, m.FormatVersion, m.Files = Format, FormatVersion, nil
	for _, s := range sources {
		fi, err := os.Stat(s.Path)
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		// The digest's length is fixed, so the manifest's size is known
		// before the files are read.
		m.Files = append(m.Files, File{Name: s.Name, Size: fi.Size(), SHA256: strings.Repeat("0", sha256.Size*2)})
	}
	probe, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if _, err := parseManifest(probe); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	created, err := time.Parse(time.RFC3339, m.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("backup: created_at: %w", err)
	}
	b := &Writer{m: m, sources: sources, modTime: created.Truncate(time.Second)}
	b.size = blocks(int64(len(probe))) + 2*tarBlock // the manifest, the end-of-archive marker
	for _, f := range m.Files {
		b.size += blocks(f.Size)
	}
	return b, nil
}

const tarBlock = 512

// blocks is the stream size of one entry: its header and its content
// padded to whole blocks.
func blocks(n int64) int64 {
	return tarBlock + (n+tarBlock-1)/tarBlock*tarBlock
}

// Size is the number of bytes WriteTo writes.
func (b *Writer) Size() int64 { return b.size }

// Manifest is the backup's manifest; its digests are known once WriteTo
// has returned.
func (b *Writer) Manifest() Manifest { return b.m }

// WriteTo writes the backup to w in one pass over each file.
func (b *Writer) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	tw := tar.NewWriter(cw)
	for i, s := range b.sources {
		sum, err := b.writeFile(tw, s, b.m.Files[i].Size)
		if err != nil {
			return cw.n, err
		}
		b.m.Files[i].SHA256 = sum
	}
	raw, err := json.Marshal(b.m)
	if err != nil {
		return cw.n, err
	}
	if err := b.header(tw, ManifestName, int64(len(raw))); err != nil {
		return cw.n, err
	}
	if _, err := tw.Write(raw); err != nil {
		return cw.n, fmt.Errorf("backup: write %s: %w", ManifestName, err)
	}
	if err := tw.Close(); err != nil {
		return cw.n, fmt.Errorf("backup: %w", err)
	}
	if cw.n != b.size {
		return cw.n, fmt.Errorf("backup: wrote %d bytes, announced %d", cw.n, b.size)
	}
	return cw.n, nil
}

// writeFile copies one file into the stream and returns its sha256.
func (b *Writer) writeFile(tw *tar.Writer, s Source, size int64) (string, error) {
	f, err := os.Open(s.Path)
	if err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	defer f.Close()
	if err := b.header(tw, s.Name, size); err != nil {
		return "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tw, h), io.LimitReader(f, size))
	if err != nil {
		return "", fmt.Errorf("backup: write %s: %w", s.Name, err)
	}
	if n != size {
		return "", fmt.Errorf("backup: %s shrank from %d to %d bytes while it was written", s.Name, size, n)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (b *Writer) header(tw *tar.Writer, name string, size int64) error {
	err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o600,
		ModTime: b.modTime, Format: tar.FormatGNU})
	if err != nil {
		return fmt.Errorf("backup: %s: %w", name, err)
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
