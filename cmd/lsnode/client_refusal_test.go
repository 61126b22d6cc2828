package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 403 explains itself: an agent token's JSON refusal is shown as the
// node gave it; the page of a Host or Origin refusal has no JSON message.
func TestRefusal_Forbidden(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"error": "/metrics needs an admin token (the shared token or \"admin\": true in the tokens file); token \"pi\" is an agent token"}`,
			`403 Forbidden: /metrics needs an admin token (the shared token or "admin": true in the tokens file); token "pi" is an agent token`},
		{"<!DOCTYPE HTML>\n<html>...</html>", "403 Forbidden: the node refused this Host or Origin"},
	}
	for _, tc := range cases {
		if got := refusal(403, []byte(tc.body)).Error(); got != tc.want {
			t.Errorf("refusal(403, %.30q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// A 401 after sending a token says the token was refused and where it
// came from, rather than that one is needed.
func TestClient_RefusedTokenNamesItsSource(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "right")
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LSNODE_TOKEN_FILE", "")
	cases := []struct{ lsnode, mempalace, file, want string }{
		{"wrong", "right", "", "401 Unauthorized: the node refused the bearer token of LSNODE_TOKEN"},
		{"", "wrong", "", "401 Unauthorized: the node refused the bearer token of MEMPALACE_MCP_HTTP_TOKEN"},
		{"right", "", file, "401 Unauthorized: the node refused the bearer token of token file " + file},
		{"", "", "", "401 Unauthorized: the node requires a bearer token"},
	}
	for _, tc := range cases {
		t.Setenv("LSNODE_TOKEN", tc.lsnode)
		t.Setenv("MEMPALACE_MCP_HTTP_TOKEN", tc.mempalace)
		args := []string{"status", "--addr=" + n.URL()}
		if tc.file != "" {
			args = append(args, "--token-file="+tc.file)
		}
		code, _, errOut := cli(t, args...)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("%+v: exit %d, stderr %q; want exit 1 and %q", tc, code, errOut, tc.want)
		}
	}
}
