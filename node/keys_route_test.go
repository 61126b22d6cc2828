package node

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/membership"
)

const keysToken = "keys-test-token"

// gossipNode starts a node with replication and gossip on loopback;
// keyFile "" gossips unencrypted.
func gossipNode(t *testing.T, name, keyFile string) *Node {
	t.Helper()
	return htStart(t, func(c *Config) {
		c.Token, c.Name, c.ClusterID = keysToken, name, "keys-test"
		c.GRPCAddr, c.GossipAddr, c.GossipKeyFile = "127.0.0.1:0", "127.0.0.1:0", keyFile
	})
}

func writeKeyFile(t *testing.T, keys ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gossip.key")
	if err := os.WriteFile(p, []byte(strings.Join(keys, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func testKey(fill byte) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(fill), 32)))
}

func keysPost(t *testing.T, n *Node, body string) htResp {
	t.Helper()
	return htDo(t, n, htReq{method: http.MethodPost, path: "/lsnode/keys", body: body,
		header: map[string]string{"Authorization": "Bearer " + keysToken, "Content-Type": "application/json"}})
}

func TestKeysRoute_InstallAcrossTwoNodes(t *testing.T) {
	oldKey, newKey := testKey('o'), testKey('n')
	fileA := writeKeyFile(t, oldKey)
	a := gossipNode(t, "a", fileA)
	b := gossipNode(t, "b", writeKeyFile(t, oldKey))
	if _, err := b.cluster.members.Join([]string{a.cluster.members.LocalNode().Addr}); err != nil {
		t.Fatalf("join: %v", err)
	}
	htEventually(t, "a sees b alive", func() bool {
		for _, m := range a.cluster.members.Members() {
			if m.Name == "b" && m.State == membership.StateAlive {
				return true
			}
		}
		return false
	})

	r := keysPost(t, a, `{"op": "install", "key": "`+newKey+`"}`)
	if r.status != http.StatusOK {
		t.Fatalf("install: %d %s", r.status, r.body)
	}
	got := htJSON(t, r)
	if got["members"] != 2.0 || got["succeeded"] != 2.0 {
		t.Fatalf("install answer: %s", r.body)
	}
	list := htGet(t, b, "/lsnode/keys", keysToken)
	if list.status != http.StatusOK || !strings.Contains(list.body, `{"key": "`+newKey+`", "members": 2, "primary": 0}`) ||
		!strings.Contains(list.body, `{"key": "`+oldKey+`", "members": 2, "primary": 2}`) {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	saved, err := membership.LoadKeyringFile(fileA)
	if err != nil || len(saved) != 2 || base64.StdEncoding.EncodeToString(saved[1]) != newKey {
		t.Fatalf("a's key file after install: %d keys, %v", len(saved), err)
	}

	r = keysPost(t, a, `{"op": "remove", "key": "`+oldKey+`"}`)
	if r.status != http.StatusConflict || !strings.Contains(r.body, "the key is the primary key") {
		t.Fatalf("remove primary: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"op": "install", "key": "not base64!"}`, http.StatusBadRequest},
		{`{"op": "list"}`, http.StatusBadRequest},
		{`not json`, http.StatusBadRequest},
		{`{"op": "use", "key": "` + testKey('x') + `"}`, http.StatusConflict},
	} {
		if r := keysPost(t, a, tc.body); r.status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.body, r.status, r.body, tc.want)
		}
	}
	if r := htGet(t, a, "/lsnode/keys", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", r.status)
	}
}

func TestKeysRoute_RefusedWithoutEncryptedGossip(t *testing.T) {
	plain := gossipNode(t, "plain", "")
	if r := htGet(t, plain, "/lsnode/keys", keysToken); r.status != http.StatusConflict ||
		!strings.Contains(r.body, "gossip is not encrypted") {
		t.Fatalf("unencrypted gossip: %d %s", r.status, r.body)
	}
	single := htStart(t, func(c *Config) { c.Token = keysToken })
	if r := htGet(t, single, "/lsnode/keys", keysToken); r.status != http.StatusConflict ||
		!strings.Contains(r.body, "gossip is not enabled on this node") {
		t.Fatalf("no gossip: %d %s", r.status, r.body)
	}
}
