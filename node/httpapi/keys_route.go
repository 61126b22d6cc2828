package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/membership"
)

// maxKeysBody bounds a POST /lsnode/keys body (one op and one key).
const maxKeysBody = 4 << 10

// handleKeys serves the gossip keyring (`lsnode keys`): GET lists each
// key with how many members hold it and use it as primary; POST
// {"op": "install"|"use"|"remove", "key": "<base64>"} applies the
// operation on every member that is up. Both answer per member; an
// operation refused before anything changed is a 4xx with {"error": ...}.
func (s *Server) handleKeys(w http.ResponseWriter, r *http.Request) {
	op, key := membership.KeyList, ""
	if r.Method == http.MethodPost {
		var req struct {
			Op  string `json:"op"`
			Key string `json:"key"`
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxKeysBody+1))
		if err != nil || len(body) > maxKeysBody || json.Unmarshal(body, &req) != nil {
			writeJSON(w, http.StatusBadRequest, syncwire.ErrorAnswer(`want a JSON body {"op": "install"|"use"|"remove", "key": "<base64>"} under 4 KiB`))
			return
		}
		op, key = membership.KeyOp(req.Op), req.Key
		switch op {
		case membership.KeyInstall, membership.KeyUse, membership.KeyRemove:
		default:
			writeJSON(w, http.StatusBadRequest, syncwire.ErrorAnswer(`"op" must be install, use or remove (list is a GET)`))
			return
		}
	}
	rep, err := s.keyOperation(r.Context(), op, key)
	if err != nil {
		writeJSON(w, keysStatus(err), syncwire.ErrorAnswer(err.Error()))
		return
	}
	if op != membership.KeyList {
		s.log.Info("gossip keyring changed", "op", op, "members", len(rep.Members), "succeeded", rep.Succeeded())
	}
	writeJSON(w, http.StatusOK, keysPayload(rep))
}

// keyOperation runs op on the mesh's keyring; ErrNoGossip without one.
func (s *Server) keyOperation(ctx context.Context, op membership.KeyOp, key string) (membership.KeyReport, error) {
	if s.cfg.Keyring == nil {
		return membership.KeyReport{}, ErrNoGossip
	}
	return s.cfg.Keyring.KeyOperation(ctx, op, key)
}

// keysStatus maps a refused keyring operation to its HTTP status.
func keysStatus(err error) int {
	switch {
	case errors.Is(err, ErrNoGossip), errors.Is(err, membership.ErrNotEncrypted),
		errors.Is(err, membership.ErrPrimaryKey), errors.Is(err, membership.ErrKeyNotInstalled):
		return http.StatusConflict
	case errors.Is(err, membership.ErrInvalidKey):
		return http.StatusBadRequest
	case errors.Is(err, membership.ErrShutdown):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError // the keyring file could not be saved
}

func keysPayload(rep membership.KeyReport) pyjson.Object {
	results := make([]any, len(rep.Members))
	for i, m := range rep.Members {
		row := pyjson.Object{{Key: "name", Value: m.Name}, {Key: "ok", Value: m.Error == ""}}
		if m.Error != "" {
			row = append(row, pyjson.Member{Key: "error", Value: m.Error})
		}
		results[i] = row
	}
	keys := make([]any, len(rep.Keys))
	for i, k := range rep.Keys {
		keys[i] = pyjson.Object{{Key: "key", Value: k.Key}, {Key: "members", Value: k.Members}, {Key: "primary", Value: k.Primary}}
	}
	return pyjson.Object{
		{Key: "op", Value: string(rep.Op)},
		{Key: "members", Value: len(rep.Members)},
		{Key: "succeeded", Value: rep.Succeeded()},
		{Key: "results", Value: results},
		{Key: "keys", Value: keys},
	}
}
