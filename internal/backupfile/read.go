package backupfile

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Extract reads a backup stream into dir, which should be empty, and
// verifies every file against the manifest. On any error it removes the
// files it wrote.
func Extract(r io.Reader, dir string) (Manifest, error) {
	var written []string
	m, err := read(r, func(name string) (io.WriteCloser, error) {
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			written = append(written, path)
		}
		return f, err
	})
	if err != nil {
		for _, p := range written {
			_ = os.Remove(p)
		}
	}
	return m, err
}

// Verify reads a backup stream and checks it, writing nothing.
func Verify(r io.Reader) (Manifest, error) {
	return read(r, func(string) (io.WriteCloser, error) { return discard{}, nil })
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// read walks the stream: the database, the key if any, the manifest and
// the end, in this order, each file written through open while hashed.
func read(r io.Reader, open func(name string) (io.WriteCloser, error)) (Manifest, error) {
	tr := tar.NewReader(r)
	var seen []File
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return Manifest{}, errors.New("backup: the stream ends before its manifest (truncated?)")
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("backup: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			return Manifest{}, fmt.Errorf("backup: entry %q is not a regular file", h.Name)
		}
		want := entryOrder(len(seen), h.Name)
		if want == "" {
			return Manifest{}, fmt.Errorf("backup: unexpected entry %q at position %d", h.Name, len(seen)+1)
		}
		if h.Name == ManifestName {
			return finish(tr, h, seen)
		}
		if h.Name == KeyName && h.Size > maxKeyBytes {
			return Manifest{}, fmt.Errorf("backup: %s of %d bytes", KeyName, h.Size)
		}
		f, err := copyEntry(tr, h, open)
		if err != nil {
			return Manifest{}, err
		}
		seen = append(seen, f)
	}
}

// entryOrder returns name if it may stand at position i, "" if not.
func entryOrder(i int, name string) string {
	switch {
	case i == 0 && name == DatabaseName,
		i == 1 && (name == KeyName || name == ManifestName),
		i == 2 && name == ManifestName:
		return name
	}
	return ""
}

func copyEntry(tr *tar.Reader, h *tar.Header, open func(string) (io.WriteCloser, error)) (File, error) {
	w, err := open(h.Name)
	if err != nil {
		return File{}, fmt.Errorf("backup: %w", err)
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, sum), tr)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return File{}, fmt.Errorf("backup: read %s: %w", h.Name, err)
	}
	return File{Name: h.Name, Size: n, SHA256: hex.EncodeToString(sum.Sum(nil))}, nil
}

// finish reads the manifest and checks the files seen against it, and
// that nothing follows.
func finish(tr *tar.Reader, h *tar.Header, seen []File) (Manifest, error) {
	if h.Size > maxManifestBytes {
		return Manifest{}, fmt.Errorf("backup: %s of %d bytes", ManifestName, h.Size)
	}
	raw, err := io.ReadAll(tr)
	if err != nil {
		return Manifest{}, fmt.Errorf("backup: read %s: %w", ManifestName, err)
	}
	m, err := parseManifest(raw)
	if err != nil {
		return m, fmt.Errorf("backup: %w", err)
	}
	if len(m.Files) != len(seen) {
		return m, fmt.Errorf("backup: the manifest lists %d files, the stream holds %d", len(m.Files), len(seen))
	}
	for i, f := range m.Files {
		got := seen[i]
		if got.Size != f.Size || got.SHA256 != f.SHA256 {
			return m, fmt.Errorf("backup: %s does not match the manifest: %d bytes with sha256 %s, the manifest says %d bytes with sha256 %s (corrupt or truncated)",
				f.Name, got.Size, got.SHA256, f.Size, f.SHA256)
		}
	}
	if _, err := tr.Next(); !errors.Is(err, io.EOF) {
		return m, errors.New("backup: data after the manifest")
	}
	return m, nil
}
