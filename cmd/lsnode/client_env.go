package main

import (
	"fmt"
	"os"
	"strings"
)

// envOr returns the first set (non-blank) variable of names, else def.
// Flags take their defaults from it, so a flag beats its variable.
func envOr(def string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return def
}

// envTruthy reports whether the first set variable of names is truthy
// (1, true, yes, on; any case), as the Python hub reads its switches.
func envTruthy(names ...string) bool {
	switch strings.ToLower(envOr("", names...)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// resolveToken finds the bearer token, in this order: the token file
// (--token-file or LSNODE_TOKEN_FILE), LSNODE_TOKEN, then the Python
// hub's MEMPALACE_MCP_HTTP_TOKEN. "" means no token; from names where
// the token came from, for errors.
func resolveToken(tokenFile string) (token, from string, err error) {
	if tokenFile != "" {
		raw, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("read token file: %w", err)
		}
		tok := strings.TrimSpace(string(raw))
		if tok == "" {
			return "", "", fmt.Errorf("token file %s is empty", tokenFile)
		}
		return tok, "token file " + tokenFile, nil
	}
	for _, name := range []string{"LSNODE_TOKEN", "MEMPALACE_MCP_HTTP_TOKEN"} {
		if tok := envOr("", name); tok != "" {
			return tok, name, nil
		}
	}
	return "", "", nil
}
