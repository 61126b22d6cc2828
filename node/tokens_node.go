package node

import (
	"github.com/lsnode/lsnode/node/auth"
)

// loadTokens reads the tokens file of the configuration, if any; an
// invalid file stops the node from starting.
func (n *Node) loadTokens() error {
	if n.cfg.Auth.TokensFile == "" {
		return nil
	}
	t, err := auth.OpenTokens(n.cfg.Auth.TokensFile, n.cfg.Auth.Token)
	if err != nil {
		return err
	}
	n.tokens = t
	return nil
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
	t, err := n.tokens.Reload()
	if err != nil {
		n.log.Error("tokens reload failed; keeping the current tokens", "file", n.tokens.File(), "err", err,
			"tokens", n.tokens.Table().Len())
		return err
	}
	n.log.Info("tokens file reloaded", "file", n.tokens.File(), "tokens", t.Len())
	return nil
}

// tokenCount is the number of agent tokens loaded (0 without a file).
func (n *Node) tokenCount() int {
	if n.tokens == nil {
		return 0
	}
	return n.tokens.Table().Len()
}
