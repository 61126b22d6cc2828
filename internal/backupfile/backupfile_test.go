package backupfile

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture writes a database and a key file and returns their sources.
func fixture(t *testing.T, withKey bool) []Source {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	if err := os.WriteFile(db, bytes.Repeat([]byte("page"), 3000), 0o600); err != nil {
		t.Fatal(err)
	}
	out := []Source{{Name: DatabaseName, Path: db}}
	if withKey {
		key := filepath.Join(dir, "key")
		if err := os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out = append(out, Source{Name: KeyName, Path: key})
	}
	return out
}

func testManifest() Manifest {
	return Manifest{CreatedAt: "2026-03-01T10:00:00Z", LsnodeVersion: "test", ReplicaID: "rep_aaaaaaaaaaaa",
		VersionVector: map[string]int64{"rep_aaaaaaaaaaaa": 7}, Events: 7}
}

func write(t *testing.T, sources []Source) ([]byte, Manifest) {
	t.Helper()
	b, err := New(testManifest(), sources)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := b.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != b.Size() || int64(buf.Len()) != b.Size() {
		t.Fatalf("wrote %d bytes (%d counted), announced %d", buf.Len(), n, b.Size())
	}
	return buf.Bytes(), b.Manifest()
}

func TestRoundTrip(t *testing.T) {
	for _, withKey := range []bool{false, true} {
		sources := fixture(t, withKey)
		raw, wrote := write(t, sources)
		dir := t.TempDir()
		m, err := Extract(bytes.NewReader(raw), dir)
		if err != nil {
			t.Fatalf("key %v: %v", withKey, err)
		}
		if m.HasKey() != withKey || m.ReplicaID != "rep_aaaaaaaaaaaa" || m.VersionVector["rep_aaaaaaaaaaaa"] != 7 ||
			m.Format != Format || m.FormatVersion != FormatVersion || len(m.Files) != len(sources) || m.Files[0] != wrote.Files[0] {
			t.Fatalf("manifest %+v, wrote %+v", m, wrote)
		}
		for _, s := range sources {
			want, _ := os.ReadFile(s.Path)
			got, err := os.ReadFile(filepath.Join(dir, s.Name))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s extracted differs: %v", s.Name, err)
			}
		}
		if _, err := Verify(bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefusals(t *testing.T) {
	raw, _ := write(t, fixture(t, true))
	flipped := bytes.Clone(raw)
	flipped[tarBlock+100] ^= 1 // a byte of the database
	extra := func() []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "evil", Size: 1, Mode: 0o600})
		tw.Write([]byte("x"))
		tw.Close()
		return buf.Bytes()
	}()
	for _, c := range []struct {
		name, want string
		raw        []byte
	}{
		{"a flipped byte", "does not match the manifest", flipped},
		{"truncated", "", raw[:len(raw)/2]},
		{"no manifest", "before its manifest", raw[:blocks(12000)+blocks(28)]},
		{"a foreign entry", "unexpected entry", extra},
		{"empty", "before its manifest", nil},
	} {
		dir := t.TempDir()
		_, err := Extract(bytes.NewReader(c.raw), dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%s: %d files left behind", c.name, len(left))
		}
	}
}

func TestManifestChecked(t *testing.T) {
	for _, c := range []struct{ name, raw, want string }{
		{"format", `{"format":"zip","format_version":1}`, "format"},
		{"version", `{"format":"lsnode-backup","format_version":2}`, "version 2"},
		{"no database", `{"format":"lsnode-backup","format_version":1,"files":[{"name":"node.key"}],"version_vector":{}}`, "first file"},
		{"no vector", `{"format":"lsnode-backup","format_version":1,"files":[{"name":"logstream.sqlite3"}]}`, "version_vector"},
	} {
		if _, err := parseManifest([]byte(c.raw)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
