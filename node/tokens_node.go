package node

import (
	"fmt"
	"log/slog"
	"net/http"
)

// loadTokens reads the tokens file of the configuration, if any; an
// invalid file stops the node from starting.
func (n *Node) loadTokens() error {
	if n.cfg.TokensFile == "" {
		return nil
	}
	t, err := n.readTokens()
	if err != nil {
		return err
	}
	n.tokens = &tokenHolder{file: n.cfg.TokensFile}
	n.tokens.cur.Store(t)
	return nil
}

// readTokens loads and checks the tokens file against the shared token.
func (n *Node) readTokens() (*TokenTable, error) {
	t, err := LoadTokens(n.cfg.TokensFile)
	if err != nil {
		return nil, err
	}
	if n.cfg.Token != "" && t.holds(n.cfg.Token) {
		return nil, fmt.Errorf("tokens file %s: %w", n.cfg.TokensFile, errSharedInTable)
	}
	return t, nil
}

// ReloadTokens re-reads the tokens file (lsnode serve does on SIGHUP) and
// swaps the new table in atomically: requests already authenticated keep
// the identity they had, later ones use the new table. An invalid file
// keeps the current table and returns the error, which is logged too.
// Without a tokens file it does nothing.
func (n *Node) ReloadTokens() error {
	if n.tokens == nil {
		n.log.Warn("tokens reload: no tokens file is configured (--tokens-file)")
		return nil
	}
	t, err := n.readTokens()
	if err != nil {
		n.log.Error("tokens reload failed; keeping the current tokens", "file", n.tokens.file, "err", err,
			"tokens", n.tokens.cur.Load().Len())
		return err
	}
	n.tokens.cur.Store(t)
	n.log.Info("tokens file reloaded", "file", n.tokens.file, "tokens", t.Len())
	return nil
}

// tokenCount is the number of agent tokens loaded (0 without a file).
func (n *Node) tokenCount() int {
	if n.tokens == nil {
		return 0
	}
	return n.tokens.cur.Load().Len()
}

// refuseScoped answers an agent token on a route that needs an admin
// token (replication, metrics, status, the agent roster) with 403 and a
// JSON error naming the token by its label.
func refuseScoped(w http.ResponseWriter, r *http.Request, log *slog.Logger, id *identity) {
	log.Warn("request refused: admin route", "status", http.StatusForbidden, "path", r.URL.Path, "token_name", id.name)
	writeJSON(w, http.StatusForbidden, errorJSON(fmt.Sprintf(
		"%s needs an admin token (the shared token or \"admin\": true in the tokens file); %s is an agent token",
		r.URL.Path, id.label())))
}
