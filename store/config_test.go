package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfig_Validate(t *testing.T) {
	ok := DefaultConfig()
	ok.Dir = filepath.Join(t.TempDir(), "data")
	if err := ok.Validate(); err != nil {
		t.Fatalf("DefaultConfig with a Dir: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no dir", func(c *Config) { c.Dir = "" }, "Config.Dir is required"},
		{"bad replica id", func(c *Config) { c.ReplicaID = "no spaces please" }, `invalid replica id "no spaces please"`},
		{"negative batch", func(c *Config) { c.MaxBatch = -1 }, "MaxBatch must not be negative"},
	} {
		c := ok
		tc.mutate(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		// Open refuses what Validate refuses, before it creates the dir.
		if _, err := Open(context.Background(), c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Open: %v, want %q", tc.name, err, tc.want)
		}
		if _, err := os.Stat(ok.Dir); !os.IsNotExist(err) {
			t.Errorf("%s: Open created the dir (stat: %v)", tc.name, err)
		}
	}
}

// The defaults DefaultConfig spells out are the ones Open gives a zero
// field.
func TestDefaultConfig_MatchesOpenDefaults(t *testing.T) {
	def := DefaultConfig()
	if def.MaxBatch != DefaultMaxBatch || def.CommitLinger != DefaultCommitLinger || def.TailCacheBytes != DefaultTailCacheBytes ||
		def.TailCacheWarmEvents != DefaultTailCacheWarmEvents || def.MaxPageBytes != DefaultMaxPageBytes {
		t.Fatalf("DefaultConfig = %+v", def)
	}
	st, err := Open(context.Background(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := st.cfg
	if got.MaxBatch != def.MaxBatch || got.CommitLinger != def.CommitLinger || got.TailCacheBytes != def.TailCacheBytes ||
		got.TailCacheWarmEvents != def.TailCacheWarmEvents || got.MaxPageBytes != def.MaxPageBytes {
		t.Fatalf("Open filled %+v, DefaultConfig has %+v", got, def)
	}
}
