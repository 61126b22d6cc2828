package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/lsnode/lsnode/node/auth"
)

// maxSignInBytes bounds a sign-in body: a token and its JSON.
const maxSignInBytes = 64 << 10

// sessionInfo is what the page learns of its session: who it is, what
// it may do, and the CSRF token its POSTs carry.
type sessionInfo struct {
	SignedIn     bool       `json:"signed_in"`
	NeedsToken   bool       `json:"needs_token"`
	Name         string     `json:"name,omitempty"`
	Admin        bool       `json:"admin"`
	WriteAs      []string   `json:"write_as"`
	AnyWriter    bool       `json:"write_as_any"`
	Read         *readInfo  `json:"read,omitempty"`
	CSRF         string     `json:"csrf_token,omitempty"`
	IdleTimeoutS float64    `json:"idle_timeout_s"`
	Node         nodeBanner `json:"node"`
}

// readInfo is a read scope as the page shows it; nil reads everything.
type readInfo struct {
	Agents     []string `json:"agents"`
	Broadcasts bool     `json:"broadcasts"`
	Streams    []string `json:"streams"`
}

// nodeBanner names the node the console is served by.
type nodeBanner struct {
	ReplicaID string `json:"replica_id"`
	Name      string `json:"name"` // the member name, else the host name
	Version   string `json:"version"`
	ReadOnly  bool   `json:"read_only"`
}

func (c *console) banner(ctx context.Context) nodeBanner {
	b := nodeBanner{ReplicaID: c.store.ReplicaID(), Name: c.s.name, Version: c.s.cfg.Version, ReadOnly: c.s.cfg.ReadOnly}
	if name, ok := c.replicaNames(ctx)[b.ReplicaID]; ok {
		b.Name = name
	}
	return b
}

// replicaNames maps the replica ids of the mesh's members to their
// names (none without membership).
func (c *console) replicaNames(ctx context.Context) map[string]string {
	out := map[string]string{}
	if est := c.s.roster(ctx).Lsnode; est != nil {
		for _, m := range est.Members {
			out[m.ReplicaID] = m.Name
		}
	}
	return out
}

func (c *console) info(ctx context.Context, sess *consoleSession, id *auth.Identity) sessionInfo {
	out := sessionInfo{
		SignedIn: true, NeedsToken: c.s.policy.auth.Required(), Name: identityName(id), Admin: !id.Scoped(),
		WriteAs: id.WriteAs(), AnyWriter: !id.Scoped(), CSRF: sess.csrf,
		IdleTimeoutS: c.sessions.idle.Seconds(), Node: c.banner(ctx),
	}
	if out.WriteAs == nil {
		out.WriteAs = []string{}
	}
	if sc := id.ReadScope(); sc != nil {
		out.Read = &readInfo{Agents: nonNil(sc.Agents), Broadcasts: sc.Broadcasts, Streams: nonNil(sc.Streams)}
	}
	return out
}

func identityName(id *auth.Identity) string {
	switch {
	case id == nil:
		return "no token required"
	case id.Name() == "":
		return "unnamed token"
	}
	return id.Name()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// handleSession answers GET /ui/api/session: the session of the cookie,
// or {"signed_in": false} with whether sign-in needs a token.
func (c *console) handleSession(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	sess, id, code, _ := c.sessions.authenticate(r, c.s.policy.auth, !isBackground(r))
	if code != 0 {
		writeConsoleJSON(w, http.StatusOK, sessionInfo{NeedsToken: c.s.policy.auth.Required(), WriteAs: []string{},
			IdleTimeoutS: c.sessions.idle.Seconds(), Node: c.banner(r.Context())})
		return
	}
	writeConsoleJSON(w, http.StatusOK, c.info(r.Context(), sess, id))
}

// handleSignIn answers POST /ui/api/signin {"token": "..."}: a token
// that authenticates as a bearer would gets a new session and its
// cookie; any other is refused with 401 and nothing is kept. A node that
// requires no token signs anyone in with full access, as its other
// routes serve anyone.
func (c *console) handleSignIn(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	var in struct {
		Token string `json:"token"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSignInBytes))
	if err := dec.Decode(&in); err != nil {
		writeConsoleError(w, http.StatusBadRequest, `sign-in takes {"token": "..."}`)
		return
	}
	a := c.s.policy.auth
	id, ok := a.IdentifyCredential(auth.CredentialOf(in.Token))
	if a.Required() && (in.Token == "" || !ok) {
		c.s.log.Warn("console sign-in refused: token not accepted", "remote", r.RemoteAddr)
		writeConsoleError(w, http.StatusUnauthorized, "token not accepted")
		return
	}
	sess, err := c.sessions.create(auth.CredentialOf(in.Token))
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	c.s.log.Info("console signed in", "token_name", id.Name(), "remote", r.RemoteAddr)
	http.SetCookie(w, c.sessions.cookieOf(sess, c.s.cfg.Scheme == "https"))
	writeConsoleJSON(w, http.StatusOK, c.info(r.Context(), sess, id))
}

// handleSignOut answers POST /ui/api/signout: the session ends, its
// tails close, and the cookie is cleared.
func (c *console) handleSignOut(w http.ResponseWriter, r *http.Request, sess *consoleSession) {
	c.sessions.end(sess)
	c.s.log.Info("console signed out", "token_name", auth.IdentityFrom(r.Context()).Name())
	http.SetCookie(w, c.sessions.cookieOf(nil, c.s.cfg.Scheme == "https"))
	writeConsoleJSON(w, http.StatusOK, map[string]bool{"signed_in": false})
}
