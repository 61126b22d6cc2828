package membership

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKnownPeers_SaveAndLoad(t *testing.T) {
	dir := t.TempDir()
	k, err := loadKnownPeers(dir, "c1", "self")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	k.seen("b", "10.0.0.2:7946", now)
	k.seen("a", "10.0.0.1:7946", now)
	k.seen("self", "10.0.0.9:7946", now) // never itself
	if err := k.flush(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, KnownPeersFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "cluster_id": "c1",
  "peers": [
    {
      "name": "a",
      "addr": "10.0.0.1:7946",
      "last_seen": "2026-12-01T10:00:00Z"
    },
    {
      "name": "b",
      "addr": "10.0.0.2:7946",
      "last_seen": "2026-12-01T10:00:00Z"
    }
  ]
}
`
	if string(raw) != want {
		t.Fatalf("file =\n%s\nwant\n%s", raw, want)
	}
	again, err := loadKnownPeers(dir, "c1", "self")
	if err != nil {
		t.Fatal(err)
	}
	if got := again.list(); len(got) != 2 || got[0].Addr != "10.0.0.1:7946" {
		t.Fatalf("reloaded %+v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("dir holds %d entries, want only the file (no temp files left)", len(entries))
	}
}

func TestKnownPeers_WritesOnlyOnChange(t *testing.T) {
	dir := t.TempDir()
	k, _ := loadKnownPeers(dir, "c1", "self")
	now := time.Now()
	k.seen("a", "10.0.0.1:7946", now)
	if err := k.flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, KnownPeersFile)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	k.seen("a", "10.0.0.1:7946", now.Add(time.Minute)) // only last_seen
	if err := k.flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("flush wrote for a last_seen change: %v", err)
	}
	if err := k.save(); err != nil { // shutdown writes it
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("save did not write: %v", err)
	}
	k.remove("a")
	if err := k.flush(); err != nil {
		t.Fatal(err)
	}
	if again, _ := loadKnownPeers(dir, "c1", "self"); len(again.list()) != 0 {
		t.Fatalf("removed peer still listed: %+v", again.list())
	}
}

func TestKnownPeers_IgnoresBadFiles(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"malformed", "{", "malformed"},
		{"other cluster", `{"version":1,"cluster_id":"old","peers":[{"name":"a","addr":"x:1"}]}`, `cluster "old"`},
		{"other version", `{"version":7,"cluster_id":"c1","peers":[]}`, "format version 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, KnownPeersFile), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			k, err := loadKnownPeers(dir, "c1", "self")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if k == nil || len(k.list()) != 0 {
				t.Fatalf("a bad file must give an empty, usable set")
			}
		})
	}
}
