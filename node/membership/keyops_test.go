package membership

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node/membership/memnet"
)

// keyOf returns a base64 AES-256 key made of one repeated byte.
func keyOf(fill byte) string { return key(32, fill) }

// keyedCluster starts n nodes on a new hub sharing the keyring [first],
// each saving it to its own key file; it returns the hub, the nodes and
// their key files.
func keyedCluster(t *testing.T, n int, first string) (*memnet.Hub, []*testNode, []string) {
	t.Helper()
	hub := newHub(t)
	files := make([]string, n)
	i := 0
	nodes := startCluster(t, hub, n, func(c *Config) {
		k, err := parseKey(first)
		if err != nil {
			t.Fatal(err)
		}
		c.Keyring = [][]byte{k}
		files[i] = filepath.Join(t.TempDir(), "gossip.key")
		c.KeyringFile = files[i]
		c.KeyReplyTimeout = 3 * time.Second
		i++
	})
	return hub, nodes, files
}

// runKeyOp runs op on node and requires every member to apply it.
func runKeyOp(t *testing.T, on *testNode, op KeyOp, key string, members int) KeyReport {
	t.Helper()
	rep, err := on.m.KeyOperation(context.Background(), op, key)
	if err != nil {
		t.Fatalf("%s %s: %v", on.name, op, err)
	}
	if len(rep.Members) != members || rep.Succeeded() != members {
		t.Fatalf("%s %s: %d/%d members succeeded: %+v", on.name, op, rep.Succeeded(), len(rep.Members), rep.Members)
	}
	return rep
}

// usage returns the counts of key in rep, zero when absent.
func usage(rep KeyReport, key string) KeyUsage {
	for _, u := range rep.Keys {
		if u.Key == key {
			return u
		}
	}
	return KeyUsage{Key: key}
}

func TestKeyring_RotationAcrossTheCluster(t *testing.T) {
	oldKey, newKey := keyOf('o'), keyOf('n')
	hub, nodes, files := keyedCluster(t, 3, oldKey)
	all := names(nodes)

	runKeyOp(t, nodes[1], KeyInstall, newKey, 3)
	waitStates(t, nodes, all, StateAlive)
	rep := runKeyOp(t, nodes[0], KeyList, "", 3)
	if u := usage(rep, newKey); u.Members != 3 || u.Primary != 0 {
		t.Fatalf("after install, new key: %+v", u)
	}
	if u := usage(rep, oldKey); u.Members != 3 || u.Primary != 3 {
		t.Fatalf("after install, old key: %+v", u)
	}

	runKeyOp(t, nodes[2], KeyUse, newKey, 3)
	waitStates(t, nodes, all, StateAlive)

	// The old key is the primary nowhere now, so removing it is allowed.
	rep = runKeyOp(t, nodes[0], KeyRemove, oldKey, 3)
	if u := usage(rep, oldKey); u.Members != 0 {
		t.Fatalf("after remove, old key still held: %+v", u)
	}
	if u := usage(rep, newKey); u.Members != 3 || u.Primary != 3 {
		t.Fatalf("after remove, new key: %+v", u)
	}
	// Gossip keeps working on the new key alone.
	waitStates(t, nodes, all, StateAlive)

	for i, f := range files {
		keys, err := LoadKeyringFile(f)
		if err != nil {
			t.Fatalf("%s key file: %v", nodes[i].name, err)
		}
		if len(keys) != 1 || base64.StdEncoding.EncodeToString(keys[0]) != newKey {
			t.Fatalf("%s key file holds %d keys, want only the new one", nodes[i].name, len(keys))
		}
	}

	// A node holding only the old key cannot join any more.
	stale := startNode(t, hub, "stale", func(c *Config) {
		k, _ := parseKey(oldKey)
		c.Keyring = [][]byte{k}
	})
	if _, err := stale.m.Join([]string{nodes[0].tr.Addr()}); err == nil {
		t.Fatal("a node holding only the removed key joined")
	}
	for _, n := range nodes {
		if s := stateOn(n, "stale"); s != "" {
			t.Fatalf("%s lists the stale node as %q", n.name, s)
		}
	}
}

func TestKeyring_Refusals(t *testing.T) {
	k1, k2 := keyOf('a'), keyOf('b')
	_, nodes, files := keyedCluster(t, 2, k1)
	ctx := context.Background()
	cases := []struct {
		op   KeyOp
		key  string
		want error
		text string
	}{
		{KeyRemove, k1, ErrPrimaryKey, "make another key primary"},
		{KeyUse, k2, ErrKeyNotInstalled, "not in the keyring"},
		{KeyInstall, "!!!", ErrInvalidKey, "not base64"},
		{KeyInstall, key(20, 'c'), ErrInvalidKey, "20 bytes"},
		{KeyOp("rotate"), k2, nil, `unknown keyring operation "rotate"`},
	}
	for _, tc := range cases {
		_, err := nodes[0].m.KeyOperation(ctx, tc.op, tc.key)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s %q: err = %v, want %v with %q", tc.op, tc.key, err, tc.want, tc.text)
		}
	}
	// Nothing changed anywhere.
	rep := runKeyOp(t, nodes[1], KeyList, "", 2)
	if len(rep.Keys) != 1 || rep.Keys[0] != (KeyUsage{Key: k1, Members: 2, Primary: 2}) {
		t.Fatalf("keyring after refusals: %+v", rep.Keys)
	}
	for _, f := range files {
		if _, err := LoadKeyringFile(f); err == nil {
			t.Fatalf("%s was written by a refused operation", f)
		}
	}
}

func TestKeyring_NotEncrypted(t *testing.T) {
	hub := newHub(t)
	n := startNode(t, hub, "plain", nil)
	if _, err := n.m.KeyOperation(context.Background(), KeyList, ""); !errors.Is(err, ErrNotEncrypted) {
		t.Fatalf("err = %v, want ErrNotEncrypted", err)
	}
}

// A member that cannot be reached is reported, and the others still apply
// the operation.
func TestKeyring_UnreachableMemberIsReported(t *testing.T) {
	hub, nodes, _ := keyedCluster(t, 3, keyOf('a'))
	hub.Isolate(nodes[2].name)
	rep, err := nodes[0].m.KeyOperation(context.Background(), KeyInstall, keyOf('b'))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Succeeded() != 2 {
		t.Fatalf("succeeded = %d, want 2: %+v", rep.Succeeded(), rep.Members)
	}
	var failed KeyMemberResult
	for _, m := range rep.Members {
		if m.Name == nodes[2].name {
			failed = m
		}
	}
	if failed.Error == "" {
		t.Fatalf("the isolated member has no error: %+v", rep.Members)
	}
	t.Logf("isolated member: %s", failed.Error)
	if u := usage(rep, keyOf('b')); u.Members != 2 {
		t.Fatalf("new key held by %d answering members, want 2", u.Members)
	}
}
