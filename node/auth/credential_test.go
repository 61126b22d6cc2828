package auth

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIdentifyCredential(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.json")
	write := func(body string) {
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"tokens": [{"token": "agent-token", "name": "pi", "write_as": ["pi"]}]}`)
	tokens, err := OpenTokens(file, "shared-token")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuthenticator("shared-token", tokens)
	if id, ok := a.IdentifyCredential(CredentialOf("shared-token")); !ok || id != Shared {
		t.Fatalf("shared token: %v %v", id, ok)
	}
	if id, ok := a.IdentifyCredential(CredentialOf("agent-token")); !ok || id.Name() != "pi" || !id.Scoped() {
		t.Fatalf("agent token: %v %v", id, ok)
	}
	for _, bad := range []string{"", "nope", "Bearer shared-token", "shared-token "} {
		if _, ok := a.IdentifyCredential(CredentialOf(bad)); ok {
			t.Fatalf("%q accepted", bad)
		}
	}
	// A reload that drops the token refuses its credential from then on.
	write(`{"tokens": []}`)
	if _, err := tokens.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.IdentifyCredential(CredentialOf("agent-token")); ok {
		t.Fatal("a dropped token's credential still accepted")
	}
	if id, ok := NewAuthenticator("", nil).IdentifyCredential(CredentialOf("")); !ok || id != nil {
		t.Fatalf("no token configured: %v %v", id, ok)
	}
}
