package fakehub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
)

// Stats are sync_with_peer's stats dict.
type Stats struct {
	PeerURL             string
	PeerReplica         string // "?" when the peer did not say
	PulledEvents        int
	PulledArtifacts     int
	PerOrigin           map[string]int
	RemoteVersionVector map[string]int64
	RemoteProfile       json.RawMessage
	RemoteProfiles      map[string]json.RawMessage
	// Requests counts the GETs the round made (not in the Python dict;
	// tests check the paging with it).
	Requests int
}

// TransportError is the hub's TransportError: "<url>: <reason>".
type TransportError struct{ Text string }

func (e *TransportError) Error() string { return e.Text }

// SyncWithPeer is the hub's pull engine (logsync.sync_with_peer over
// transport.http_request): GET /sync/version_vector; for every origin of
// the peer's vector but the hub's own, pages of GET /sync/ops (limit 500)
// after the hub's top until the peer's top or an empty page; for each
// event, GET /sync/artifact for every named artifact not held, apply it,
// then apply the event. Errors are a *TransportError for the wire and
// the apply error (ValueError in the hub) otherwise; the round stops at
// the first one, as the hub's does.
//
// One guard the hub lacks: a page that does not move after= ends the
// origin instead of asking for the same page forever.
func (h *Hub) SyncWithPeer(ctx context.Context, client *http.Client, base, token string) (Stats, error) {
	p := &pyPull{h: h, hc: client, base: strings.TrimRight(base, "/"), token: token}
	st := Stats{PeerURL: base, PeerReplica: "?", PerOrigin: map[string]int{}}
	var remote syncwire.VersionVector[json.RawMessage]
	if err := p.get(ctx, syncwire.VersionVectorPath, nil, func(body []byte) (err error) {
		remote, err = syncwire.DecodeVersionVector(body)
		return err
	}); err != nil {
		return st, err
	}
	if remote.ReplicaID != "" {
		st.PeerReplica = remote.ReplicaID
	}
	st.RemoteVersionVector = remote.Vector
	st.RemoteProfile, st.RemoteProfiles = remote.Profile, remote.Profiles
	local := h.VersionVector()
	origins := make([]string, 0, len(st.RemoteVersionVector))
	for o := range st.RemoteVersionVector {
		origins = append(origins, o)
	}
	slices.Sort(origins)
	for _, origin := range origins {
		if origin == h.cfg.ReplicaID {
			continue
		}
		n, err := p.pullOrigin(ctx, origin, local[origin], st.RemoteVersionVector[origin], &st)
		if n > 0 {
			st.PerOrigin[origin] = n
		}
		if err != nil {
			st.Requests = p.requests
			return st, err
		}
	}
	st.Requests = p.requests
	return st, nil
}

type pyPull struct {
	h        *Hub
	hc       *http.Client
	base     string
	token    string
	requests int
}

func (p *pyPull) pullOrigin(ctx context.Context, origin string, after, top int64, st *Stats) (int, error) {
	pulled := 0
	for after < top {
		var events []map[string]any
		if err := p.get(ctx, syncwire.OpsPath, syncwire.OpsParams(origin, after, syncwire.MaxOpsLimit), func(body []byte) error {
			page, err := syncwire.DecodeOps(body)
			if err != nil {
				return err
			}
			events = make([]map[string]any, len(page.Events))
			for i, raw := range page.Events {
				if err := syncwire.DecodeAnswer(raw, &events[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return pulled, err
		}
		if len(events) == 0 {
			return pulled, nil // the peer's vector promised more than it served
		}
		before := after
		for _, ev := range events {
			if err := p.artifacts(ctx, ev, st); err != nil {
				return pulled, err
			}
			ok, err := p.h.ApplyRemote(ev)
			if err != nil {
				return pulled, err
			}
			if ok {
				st.PulledEvents++
				pulled++
			}
			if seq, err := strconv.ParseInt(fmt.Sprint(ev["origin_seq"]), 10, 64); err == nil && seq > after {
				after = seq
			}
		}
		if after == before {
			return pulled, nil
		}
	}
	return pulled, nil
}

// artifacts fetches and applies the artifacts ev names that are not held.
func (p *pyPull) artifacts(ctx context.Context, ev map[string]any, st *Stats) error {
	ids, _ := ev["artifact_ids"].([]any)
	for _, v := range ids {
		id, _ := v.(string)
		if p.h.HasArtifact(id) {
			continue
		}
		var art map[string]any
		if err := p.get(ctx, syncwire.ArtifactPath, syncwire.ArtifactParams(id), func(body []byte) error {
			raw, err := syncwire.DecodeArtifact(body)
			if err != nil || raw == nil {
				return err
			}
			return syncwire.DecodeAnswer(raw, &art)
		}); err != nil {
			return err
		}
		if len(art) == 0 {
			return &TransportError{fmt.Sprintf("%s: peer served event %s but not its artifact %s",
				p.base, rules.Repr(fmt.Sprint(ev["id"])), rules.Repr(id))}
		}
		ok, err := p.h.ApplyRemoteArtifact(art)
		if err != nil {
			return err
		}
		if ok {
			st.PulledArtifacts++
		}
	}
	return nil
}

// get is transport.http_request: one GET, bearer token when set, the
// JSON body read by decode; non-2xx, network and JSON errors become
// TransportError.
func (p *pyPull) get(ctx context.Context, path string, params []pyhttp.Param, decode func([]byte) error) error {
	u := syncwire.URL(p.base, path, params...)
	p.requests++
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &TransportError{u + ": " + err.Error()}
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return &TransportError{u + ": " + err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return &TransportError{u + ": " + err.Error()}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &TransportError{fmt.Sprintf("%s: HTTP Error %d: %s", u, resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	if err := decode(body); err != nil {
		return &TransportError{u + ": " + err.Error()}
	}
	return nil
}
