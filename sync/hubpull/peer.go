package hubpull

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/store"
)

// artifactFlushBytes bounds the artifact content one apply holds: a page
// naming many large artifacts is applied in several artifact batches
// before its ops.
const artifactFlushBytes = 16 << 20

// peerRound is the state of one round with one peer.
type peerRound struct {
	p     *Puller
	c     *peerClient
	st    *httpPeerState // its refused set is touched only by this round's goroutine
	round uint64
	res   PeerResult
}

// pullPeer runs sync_with_peer against one peer.
func (p *Puller) pullPeer(ctx context.Context, st *httpPeerState, round uint64) PeerResult {
	r := &peerRound{
		p: p, c: newPeerClient(p.hc, st.peer, p.cfg.MaxResponseBytes), st: st, round: round,
		res: PeerResult{Name: st.status.Name, URL: RedactURL(st.peer.URL), PerOrigin: map[string]int{}},
	}
	budget, cancel := p.peerBudget(ctx)
	defer cancel()
	if err := r.run(budget); err != nil {
		r.res.Err = err
		if ctx.Err() == nil && budget.Err() != nil {
			r.budgetSpent()
		}
	}
	r.scrubErrors()
	return r.res
}

// peerBudget bounds one peer's share of a loop round by the longer of
// the loop's interval and the request timeout (so that any request that
// may succeed can): a round waits for every peer, so a peer that answers
// slowly, request after request, would otherwise keep the others from
// being pulled again for as long as it likes. A pull cut short goes on
// next round from the local vector. Without a loop there is no bound.
func (p *Puller) peerBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.cfg.Interval <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, p.budget())
}

func (p *Puller) budget() time.Duration { return max(p.cfg.Interval, p.cfg.Timeout) }

// budgetSpent reports a pull cut short by peerBudget: a peer that had not
// even answered its version vector is unreachable; one that had is
// reachable and its pull partial.
func (r *peerRound) budgetSpent() {
	if r.res.RemoteVersionVector == nil {
		r.res.Err = r.c.errorf(ErrPeerUnreachable, "%s: no answer within the round's %s", RedactURL(r.c.base), r.p.budget())
		return
	}
	r.res.Err = nil
	r.res.OriginErrs = append(r.res.OriginErrs,
		originErrorf("the round's %s were spent on this peer; its pull goes on next round", r.p.budget()))
}

func (r *peerRound) run(ctx context.Context) error {
	var vv syncwire.VersionVector[json.RawMessage]
	if err := r.c.get(ctx, syncwire.VersionVectorPath, nil, func(body []byte) (err error) {
		vv, err = syncwire.DecodeVersionVector(body)
		return err
	}); err != nil {
		return err
	}
	remote := r.readVector(vv)
	self := r.p.log.ReplicaID()
	for _, origin := range slices.Sorted(maps.Keys(remote)) {
		if origin == self {
			continue // nobody knows more of our own ops than we do
		}
		if !store.ValidReplicaID(origin) {
			r.res.OriginErrs = append(r.res.OriginErrs,
				originErrorf("peer's vector names origin %s, which is not a replica id; skipped", rules.Repr(origin)))
			continue
		}
		err := r.pullOrigin(ctx, origin, remote[origin])
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return ctx.Err()
		case isOriginProblem(err):
			r.res.OriginErrs = append(r.res.OriginErrs, err)
		default:
			return err
		}
	}
	return nil
}

// readVector records what the version_vector answer says of the peer
// and returns its vector.
func (r *peerRound) readVector(vv syncwire.VersionVector[json.RawMessage]) map[string]int64 {
	if vv.ReplicaID != "" {
		r.res.ReplicaID = vv.ReplicaID
	}
	r.res.RemoteVersionVector = vv.Vector
	r.res.Profile = vv.Profile
	r.res.Profiles = vv.Profiles
	return vv.Vector
}

// pullOrigin pulls one origin from the local top up to the peer's top,
// page after page. It stops early, with an origin problem, when a page
// leaves ops deferred (an artifact missing, a hole) or makes no progress;
// the next round starts again from the local top.
func (r *peerRound) pullOrigin(ctx context.Context, origin string, remoteTop int64) error {
	after := r.p.log.VersionVector()[origin]
	limit := r.p.cfg.PageLimit
	for after < remoteTop {
		page, err := r.page(ctx, origin, after, limit)
		if errors.Is(err, ErrResponseTooLarge) {
			if limit > 1 {
				limit /= 2 // a page of big ops: ask for fewer
				continue
			}
			return originErrorf("origin %s stopped after origin_seq %d: its next op alone exceeds %d bytes (%v)",
				origin, after, r.p.cfg.MaxResponseBytes, err)
		}
		if err != nil {
			return err
		}
		if len(page.Events) == 0 {
			return nil // the peer's vector promised more than it served; stop cleanly
		}
		ops, bad := r.decodeOps(page.Events, origin, after)
		applied, err := r.applyPage(ctx, ops)
		if err != nil {
			return err
		}
		top := r.p.log.VersionVector()[origin]
		switch {
		case bad != nil:
			return bad
		case applied.Deferred > 0 && len(applied.Missing) > 0:
			return originErrorf("origin %s stopped after origin_seq %d: %d op(s) wait for artifact(s) %s not yet held",
				origin, top, applied.Deferred, describe(applied.Missing))
		case applied.Deferred > 0:
			return originErrorf("origin %s stopped after origin_seq %d: the peer's ops do not continue the held prefix",
				origin, top)
		case top <= after:
			return originErrorf("origin %s made no progress after origin_seq %d", origin, after)
		}
		after = top
	}
	return nil
}

func (r *peerRound) page(ctx context.Context, origin string, after int64, limit int) (syncwire.Ops[json.RawMessage], error) {
	var page syncwire.Ops[json.RawMessage]
	err := r.c.get(ctx, syncwire.OpsPath, syncwire.OpsParams(origin, after, limit), func(body []byte) (err error) {
		page, err = syncwire.DecodeOps(body)
		return err
	})
	return page, err
}

// decodeOps turns a page's event dicts into ops chained by PrevSeq. It
// stops at the first event it cannot use (undecodable, or of another
// origin) and returns the ops before it with the problem: skipping it
// could silently drop an op.
func (r *peerRound) decodeOps(events []json.RawMessage, origin string, after int64) ([]store.Op, error) {
	ops := make([]store.Op, 0, len(events))
	prev := after
	for i, raw := range events {
		var e store.Event
		if err := json.Unmarshal(raw, &e); err != nil {
			r.p.m.undecodable()
			return ops, originErrorf("origin %s stopped after origin_seq %d: op %d of the page is undecodable: %v",
				origin, prev, i, err)
		}
		if e.OriginReplica != origin {
			r.p.m.undecodable()
			return ops, originErrorf("origin %s stopped after origin_seq %d: the page holds event %s of origin %s",
				origin, prev, rules.Repr(e.ID), rules.Repr(e.OriginReplica))
		}
		ops = append(ops, store.Op{Event: e, PrevSeq: prev})
		if e.OriginSeq > prev {
			prev = e.OriginSeq // a slotless op (origin_seq <= prev) is refused by the store without breaking the chain
		}
	}
	return ops, nil
}

// applyPage fetches the artifacts the ops name that are not held, applies
// them, then applies the ops in one batch.
func (r *peerRound) applyPage(ctx context.Context, ops []store.Op) (store.ApplyResult, error) {
	if len(ops) == 0 {
		return store.ApplyResult{}, nil
	}
	if err := r.fetchArtifacts(ctx, ops); err != nil {
		return store.ApplyResult{}, err
	}
	if in := r.p.cfg.Integrity; in != nil {
		// HTTP ops carry no signature: the check refuses those of origins
		// that sign (pinned key) and, under --unsigned-origins=refuse, all.
		var err error
		if ops, _, err = in.Check(ctx, ops, nil, r.p.log.VersionVector(), nil); err != nil {
			return store.ApplyResult{}, err
		}
	}
	res, err := r.p.log.ApplyBatch(ctx, store.Batch{Ops: ops})
	if err != nil {
		return store.ApplyResult{}, fmt.Errorf("apply ops: %w", err)
	}
	r.p.m.applied(res)
	r.res.PulledEvents += res.Applied
	r.res.Duplicates += res.Duplicates
	r.res.Quarantined += res.Quarantined
	r.res.Deferred += res.Deferred
	if res.Applied > 0 {
		r.res.PerOrigin[ops[0].Event.OriginReplica] += res.Applied
	}
	return res, nil
}

// fetchArtifacts gets every artifact the ops name that is not held and
// applies them, in batches of at most artifactFlushBytes of content. An
// artifact the peer does not serve, or serves corrupt, is recorded as an
// origin problem; the ops naming it are then deferred by the store.
func (r *peerRound) fetchArtifacts(ctx context.Context, ops []store.Op) error {
	namedBy := map[string]string{} // artifact id -> first event naming it
	var ids []string
	for _, op := range ops {
		for _, id := range op.Event.ArtifactIDs {
			if _, ok := namedBy[id]; !ok {
				namedBy[id] = op.Event.ID
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	missing, err := r.p.log.MissingArtifacts(ctx, ids)
	if err != nil {
		return fmt.Errorf("look up artifacts: %w", err)
	}
	var batch []store.Artifact
	var fetched []string
	size := 0
	for _, id := range missing {
		if r.st.skipArtifact(id, r.round) {
			continue
		}
		a, err := r.artifact(ctx, id, namedBy[id])
		if err != nil {
			if !isOriginProblem(err) {
				return err
			}
			r.res.OriginErrs = append(r.res.OriginErrs, err)
			continue
		}
		batch, fetched, size = append(batch, a), append(fetched, id), size+len(a.Content)
		if size >= artifactFlushBytes {
			if err := r.applyArtifacts(ctx, batch, fetched); err != nil {
				return err
			}
			batch, fetched, size = nil, nil, 0
		}
	}
	return r.applyArtifacts(ctx, batch, fetched)
}

// artifact fetches one artifact. A 404, an empty answer or a record of
// another id are origin problems.
func (r *peerRound) artifact(ctx context.Context, id, eventID string) (store.Artifact, error) {
	var record json.RawMessage
	err := r.c.get(ctx, syncwire.ArtifactPath, syncwire.ArtifactParams(id), func(body []byte) (err error) {
		record, err = syncwire.DecodeArtifact(body)
		return err
	})
	var se *StatusError
	if errors.As(err, &se) && se.Code == 404 {
		r.p.m.artifact("not_found", 1)
		return store.Artifact{}, &originError{err.Error() + " (retried next round)"}
	}
	if errors.Is(err, ErrResponseTooLarge) {
		return store.Artifact{}, &originError{err.Error() + " (artifact too large for this node's bound)"}
	}
	if err != nil {
		return store.Artifact{}, err
	}
	if len(record) == 0 || string(record) == "{}" {
		r.p.m.artifact("not_found", 1)
		return store.Artifact{}, originErrorf("%s: peer served event %s but not its artifact %s",
			RedactURL(r.c.base), rules.Repr(eventID), rules.Repr(id))
	}
	var a store.Artifact
	if err := json.Unmarshal(record, &a); err != nil || a.ID != id {
		r.p.m.artifact("refused", 1)
		r.st.refuse(id, r.round)
		return store.Artifact{}, originErrorf("%s: the answer for artifact %s is not its record (retried in %d rounds)",
			RedactURL(r.c.base), rules.Repr(id), refusedRetryRounds)
	}
	return a, nil
}

// applyArtifacts stores fetched artifacts; any the store refused (hash
// mismatch, invalid) is remembered so that it is not fetched again every
// round.
func (r *peerRound) applyArtifacts(ctx context.Context, batch []store.Artifact, ids []string) error {
	if len(batch) == 0 {
		return nil
	}
	res, err := r.p.log.ApplyBatch(ctx, store.Batch{Artifacts: batch})
	if err != nil {
		return fmt.Errorf("apply artifacts: %w", err)
	}
	r.res.PulledArtifacts += res.Artifacts
	r.p.m.artifact("applied", res.Artifacts)
	if res.Quarantined == 0 {
		return nil
	}
	refused, err := r.p.log.MissingArtifacts(ctx, ids)
	if err != nil {
		return fmt.Errorf("look up artifacts: %w", err)
	}
	r.p.m.artifact("refused", len(refused))
	for _, id := range refused {
		r.st.refuse(id, r.round)
	}
	if len(refused) > 0 {
		r.res.OriginErrs = append(r.res.OriginErrs, originErrorf(
			"artifact(s) %s served by the peer were refused by the store (see the quarantine); retried in %d rounds",
			describe(refused), refusedRetryRounds))
	}
	return nil
}

// scrubErrors makes sure no error text of the result holds the token,
// whatever the peer echoed into ids or messages.
func (r *peerRound) scrubErrors() {
	if r.c.token == "" {
		return
	}
	if r.res.Err != nil {
		r.res.Err = scrubbed(r.res.Err, r.c.scrub)
	}
	for i, e := range r.res.OriginErrs {
		r.res.OriginErrs[i] = scrubbed(e, r.c.scrub)
	}
}

// scrubbed returns err with its text scrubbed, keeping what errors.Is
// matches for this package's error kinds.
func scrubbed(err error, scrub func(string) string) error {
	text := scrub(err.Error())
	if text == err.Error() {
		return err
	}
	for _, kind := range []error{ErrPeerUnreachable, ErrPeerStatus, ErrPeerProtocol, ErrResponseTooLarge, errOriginStopped} {
		if errors.Is(err, kind) {
			return &peerError{kind: kind, text: text}
		}
	}
	return &peerError{kind: errOriginStopped, text: text}
}
