package main

import (
	"fmt"
	"os"
	"strings"
)

// environ reads environment variables. The commands read the process's
// (osEnv); `lsnode config check` reads none (noEnv), so that it judges a
// file on its own.
type environ func(name string) string

var (
	osEnv environ = os.Getenv
	noEnv environ = func(string) string { return "" }
)

// first returns the first set (non-blank) variable of names and its
// name; "" when none is set.
func (e environ) first(names ...string) (name, value string) {
	for _, n := range names {
		if v := strings.TrimSpace(e(n)); v != "" {
			return n, v
		}
	}
	return "", ""
}

// or returns the first set variable of names, else def. Flags take their
// defaults from it, so a flag beats its variable.
func (e environ) or(def string, names ...string) string {
	if _, v := e.first(names...); v != "" {
		return v
	}
	return def
}

// truthyOr reads the first set variable of names as a switch (1, true,
// yes, on, any case, as the Python hub reads its switches); def when none
// is set.
func (e environ) truthyOr(def bool, names ...string) bool {
	_, v := e.first(names...)
	if v == "" {
		return def
	}
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// resolveToken finds the bearer token, in this order: the token file
// (--token-file or LSNODE_TOKEN_FILE), LSNODE_TOKEN, then the Python
// hub's MEMPALACE_MCP_HTTP_TOKEN. "" means no token; from names where
// the token came from, for errors.
func resolveToken(env environ, tokenFile string) (token, from string, err error) {
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
	if name, tok := env.first(tokenVars...); tok != "" {
		return tok, name, nil
	}
	return "", "", nil
}

// tokenVars hold the bearer token itself, after the token file.
var tokenVars = []string{"LSNODE_TOKEN", "MEMPALACE_MCP_HTTP_TOKEN"}
