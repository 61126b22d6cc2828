package node

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/node/membership"
)

const keysToken = "keys-test-token"

// gossipNode starts a node with replication and gossip on loopback;
// keyFile "" gossips unencrypted.
func gossipNode(t *testing.T, name, keyFile string) *Node {
	t.Helper()
	return htStart(t, func(c *Config) {
		c.Auth.Token, c.Membership.Name, c.ClusterID = keysToken, name, "keys-test"
		c.Replication.Addr, c.Membership.BindAddr, c.Membership.KeyringFile = "127.0.0.1:0", "127.0.0.1:0", keyFile
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

func keysPost(t *testing.T, n *Node, body string) nodetest.Resp {
	t.Helper()
	return nodetest.Do(t, n, nodetest.Req{Method: http.MethodPost, Path: "/lsnode/keys", Body: body,
		Header: map[string]string{"Authorization": "Bearer " + keysToken, "Content-Type": "application/json"}})
}

func TestKeysRoute_InstallAcrossTwoNodes(t *testing.T) {
	oldKey, newKey := testKey('o'), testKey('n')
	fileA := writeKeyFile(t, oldKey)
	a := gossipNode(t, "a", fileA)
	b := gossipNode(t, "b", writeKeyFile(t, oldKey))
	if _, err := b.cluster.members.Join([]string{a.cluster.members.LocalNode().Addr}); err != nil {
		t.Fatalf("join: %v", err)
	}
	testwait.Until(t, 10*time.Second, "a sees b alive", func() bool {
		for _, m := range a.cluster.members.Members() {
			if m.Name == "b" && m.State == membership.StateAlive {
				return true
			}
		}
		return false
	})

	r := keysPost(t, a, `{"op": "install", "key": "`+newKey+`"}`)
	if r.Status != http.StatusOK {
		t.Fatalf("install: %d %s", r.Status, r.Body)
	}
	got := nodetest.JSON(t, r)
	if got["members"] != 2.0 || got["succeeded"] != 2.0 {
		t.Fatalf("install answer: %s", r.Body)
	}
	list := nodetest.Get(t, b, "/lsnode/keys", keysToken)
	if list.Status != http.StatusOK || !strings.Contains(list.Body, `{"key": "`+newKey+`", "members": 2, "primary": 0}`) ||
		!strings.Contains(list.Body, `{"key": "`+oldKey+`", "members": 2, "primary": 2}`) {
		t.Fatalf("list: %d %s", list.Status, list.Body)
	}
	saved, err := membership.LoadKeyringFile(fileA)
	if err != nil || len(saved) != 2 || base64.StdEncoding.EncodeToString(saved[1]) != newKey {
		t.Fatalf("a's key file after install: %d keys, %v", len(saved), err)
	}

	r = keysPost(t, a, `{"op": "remove", "key": "`+oldKey+`"}`)
	if r.Status != http.StatusConflict || !strings.Contains(r.Body, "the key is the primary key") {
		t.Fatalf("remove primary: %d %s", r.Status, r.Body)
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
		if r := keysPost(t, a, tc.body); r.Status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.body, r.Status, r.Body, tc.want)
		}
	}
	if r := nodetest.Get(t, a, "/lsnode/keys", ""); r.Status != http.StatusUnauthorized {
		t.Fatalf("no token: %d", r.Status)
	}
}

func TestKeysRoute_RefusedWithoutEncryptedGossip(t *testing.T) {
	plain := gossipNode(t, "plain", "")
	if r := nodetest.Get(t, plain, "/lsnode/keys", keysToken); r.Status != http.StatusConflict ||
		!strings.Contains(r.Body, "gossip is not encrypted") {
		t.Fatalf("unencrypted gossip: %d %s", r.Status, r.Body)
	}
	single := htStart(t, func(c *Config) { c.Auth.Token = keysToken })
	if r := nodetest.Get(t, single, "/lsnode/keys", keysToken); r.Status != http.StatusConflict ||
		!strings.Contains(r.Body, "gossip is not enabled on this node") {
		t.Fatalf("no gossip: %d %s", r.Status, r.Body)
	}
}
