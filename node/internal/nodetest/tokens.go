package nodetest

import (
	"os"
	"path/filepath"
	"testing"
)

// The token tests' tokens: the shared token, and in TokensFile an agent
// token and an admin token.
const (
	SharedToken = "s3cret-token"
	AgentToken  = "agent-pi-token"
	AdminToken  = "admin-ops-token"
)

// TokensFile is a tokens file with an agent token ("pi", writing as
// pi@laptop and pi-*, reading its mailbox) and an admin token ("ops").
const TokensFile = `{"tokens": [
  {"token": "` + AgentToken + `", "name": "pi", "write_as": ["pi@laptop", "pi-*"], "read": "mailbox"},
  {"token": "` + AdminToken + `", "name": "ops", "admin": true}
]}`

// WriteTokensFile writes content to a tokens file in a temp dir and
// returns its path.
func WriteTokensFile(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
