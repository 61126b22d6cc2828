package fakehub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// pullBatch is the hub's page size (_PULL_BATCH).
const pullBatch = 500

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
	var remote struct {
		ReplicaID     *string                    `json:"replica_id"`
		VersionVector map[string]json.Number     `json:"version_vector"`
		Profile       json.RawMessage            `json:"profile"`
		Profiles      map[string]json.RawMessage `json:"profiles"`
	}
	if err := p.get(ctx, "/sync/version_vector", nil, &remote); err != nil {
		return st, err
	}
	if remote.ReplicaID != nil {
		st.PeerReplica = *remote.ReplicaID
	}
	st.RemoteVersionVector = map[string]int64{}
	for o, n := range remote.VersionVector {
		v, err := n.Int64()
		if err != nil {
			return st, fmt.Errorf("version vector top of %s is not an integer", o)
		}
		st.RemoteVersionVector[o] = v
	}
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
		var page struct {
			Events []map[string]any `json:"events"`
		}
		params := [][2]string{{"origin", origin}, {"after", strconv.FormatInt(after, 10)}, {"limit", strconv.Itoa(pullBatch)}}
		if err := p.get(ctx, "/sync/ops", params, &page); err != nil {
			return pulled, err
		}
		if len(page.Events) == 0 {
			return pulled, nil // the peer's vector promised more than it served
		}
		before := after
		for _, ev := range page.Events {
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
		var reply struct {
			Artifact map[string]any `json:"artifact"`
		}
		if err := p.get(ctx, "/sync/artifact", [][2]string{{"id", id}}, &reply); err != nil {
			return err
		}
		if len(reply.Artifact) == 0 {
			return &TransportError{fmt.Sprintf("%s: peer served event %s but not its artifact %s",
				p.base, rules.Repr(fmt.Sprint(ev["id"])), rules.Repr(id))}
		}
		ok, err := p.h.ApplyRemoteArtifact(reply.Artifact)
		if err != nil {
			return err
		}
		if ok {
			st.PulledArtifacts++
		}
	}
	return nil
}

// get is transport.http_request: one GET, bearer token when set, JSON
// back; non-2xx, network and JSON errors become TransportError.
func (p *pyPull) get(ctx context.Context, path string, params [][2]string, v any) error {
	u := p.base + path
	for i, kv := range params {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += sep + url.QueryEscape(kv[0]) + "=" + url.QueryEscape(kv[1])
	}
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
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return &TransportError{u + ": " + err.Error()}
	}
	return nil
}
