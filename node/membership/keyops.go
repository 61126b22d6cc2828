package membership

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// KeyOp is a keyring operation, applied to every member that is up.
// Rotation is install (every member can decrypt the new key), use (every
// member encrypts with it), remove (the old key no longer opens gossip).
type KeyOp string

// Keyring operations.
const (
	KeyList    KeyOp = "list"    // report each member's keys
	KeyInstall KeyOp = "install" // add a key (decrypts)
	KeyUse     KeyOp = "use"     // make an installed key the primary (encrypts)
	KeyRemove  KeyOp = "remove"  // drop a key that is not the primary
)

// DefaultKeyReplyTimeout is how long a keyring operation waits for the
// members' replies (Config.KeyReplyTimeout).
const DefaultKeyReplyTimeout = 5 * time.Second

// KeyReport is the outcome of a keyring operation across the cluster.
type KeyReport struct {
	Op KeyOp
	// Members holds one result per member asked, this node first, then by
	// name.
	Members []KeyMemberResult
	// Keys counts, over the members that answered, how many hold each key
	// and how many use it as primary, sorted by key.
	Keys []KeyUsage
}

// KeyMemberResult is one member's answer.
type KeyMemberResult struct {
	Name string
	// Error is why the member did not apply the operation (or gave no
	// answer in time); "" when it did.
	Error string
	// Keys and Primary are the member's keyring after the operation, base64.
	Keys    []string
	Primary string
}

// KeyUsage is one key as the cluster holds it.
type KeyUsage struct {
	Key     string // base64
	Members int    // members that hold it
	Primary int    // members that encrypt with it
}

// Succeeded counts the members that applied the operation.
func (r KeyReport) Succeeded() int {
	n := 0
	for _, m := range r.Members {
		if m.Error == "" {
			n++
		}
	}
	return n
}

// KeyOperation applies op to this node's keyring, saves it to
// Config.KeyringFile, and sends it to every other member that is up over
// gossip's encrypted channel, collecting their replies for up to
// Config.KeyReplyTimeout (or until ctx ends). key is the base64 key of
// install, use and remove. A bad key, or one this node cannot use or
// remove (ErrKeyNotInstalled, ErrPrimaryKey), is refused before anything
// changes anywhere. Operations from one node run one at a time.
func (m *Membership) KeyOperation(ctx context.Context, op KeyOp, key string) (KeyReport, error) {
	if m.keyring == nil {
		return KeyReport{}, ErrNotEncrypted
	}
	switch op {
	case KeyList:
	case KeyInstall, KeyUse, KeyRemove:
		if _, err := parseKey(key); err != nil {
			return KeyReport{}, err
		}
	default:
		return KeyReport{}, fmt.Errorf("membership: unknown keyring operation %q (want list, install, use or remove)", op)
	}
	m.lifecycle.Lock()
	if m.shut {
		m.lifecycle.Unlock()
		return KeyReport{}, ErrShutdown
	}
	m.wg.Add(1) // Shutdown waits for the operation
	m.lifecycle.Unlock()
	defer m.wg.Done()

	m.opMu.Lock()
	defer m.opMu.Unlock()
	local, err := m.applyKeyOp(op, key)
	if err != nil {
		return KeyReport{}, err
	}
	replies := m.askMembers(ctx, op, key)
	return buildKeyReport(op, local, replies), nil
}

// askMembers sends the request to every other member that is up and
// waits for their replies; a member that does not answer in time gets an
// error reply. Every send goroutine is joined before it returns.
func (m *Membership) askMembers(ctx context.Context, op KeyOp, key string) []keyReply {
	peers := m.alivePeers()
	if len(peers) == 0 {
		return nil
	}
	id := newRequestID()
	msg, err := encodeKeyMessage(msgKeyRequest, keyRequest{ID: id, From: m.cfg.Name, Op: op, Key: key})
	if err != nil {
		return failAll(peers, err.Error())
	}
	ch := make(chan keyReply, len(peers))
	m.pending.add(id, ch)
	defer m.pending.remove(id)

	got := map[string]keyReply{}
	sendErrs := make(chan keyReply, len(peers))
	var wg sync.WaitGroup
	for _, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.ml.SendReliable(p, msg); err != nil {
				sendErrs <- keyReply{Node: p.Name, Error: "request not delivered: " + err.Error()}
			}
		}()
	}
	defer wg.Wait()
	timer := time.NewTimer(m.cfg.KeyReplyTimeout)
	defer timer.Stop()
	for len(got) < len(peers) {
		select {
		case r := <-ch:
			got[r.Node] = r
		case r := <-sendErrs:
			got[r.Node] = r
		case <-timer.C:
			return withMissing(peers, got, fmt.Sprintf("no answer within %v", m.cfg.KeyReplyTimeout))
		case <-ctx.Done():
			return withMissing(peers, got, "no answer before the request ended: "+ctx.Err().Error())
		case <-m.stop:
			return withMissing(peers, got, "no answer before this node shut down")
		}
	}
	return withMissing(peers, got, "")
}

// withMissing lists a reply per peer, with missing for those that gave
// none.
func withMissing(peers []*memberlist.Node, got map[string]keyReply, missing string) []keyReply {
	out := make([]keyReply, 0, len(peers))
	for _, p := range peers {
		r, ok := got[p.Name]
		if !ok {
			r = keyReply{Node: p.Name, Error: missing}
		}
		out = append(out, r)
	}
	return out
}

func failAll(peers []*memberlist.Node, reason string) []keyReply {
	return withMissing(peers, nil, reason)
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// buildKeyReport puts this node's result first, the others by name, and
// counts the keys of those that answered.
func buildKeyReport(op KeyOp, local keyReply, others []keyReply) KeyReport {
	sort.Slice(others, func(i, j int) bool { return others[i].Node < others[j].Node })
	rep := KeyReport{Op: op}
	usage := map[string]*KeyUsage{}
	for _, r := range append([]keyReply{local}, others...) {
		rep.Members = append(rep.Members, KeyMemberResult{Name: r.Node, Error: r.Error, Keys: r.Keys, Primary: r.Primary})
		if len(r.Keys) == 0 {
			continue // no answer: its keyring is unknown
		}
		for _, k := range r.Keys {
			if usage[k] == nil {
				usage[k] = &KeyUsage{Key: k}
			}
			usage[k].Members++
		}
		if u := usage[r.Primary]; u != nil {
			u.Primary++
		}
	}
	for _, u := range usage {
		rep.Keys = append(rep.Keys, *u)
	}
	sort.Slice(rep.Keys, func(i, j int) bool { return rep.Keys[i].Key < rep.Keys[j].Key })
	return rep
}

// applyKeyOp applies op to this node's keyring: the new keyring is saved
// to Config.KeyringFile first, then installed in memberlist, so a failed
// save changes nothing. The reply carries the keyring afterwards and the
// error, if any, as text.
func (m *Membership) applyKeyOp(op KeyOp, key string) (keyReply, error) {
	m.keyMu.Lock()
	defer m.keyMu.Unlock()
	reply := keyReply{Node: m.cfg.Name}
	if m.keyring == nil {
		reply.Error = ErrNotEncrypted.Error()
		return reply, ErrNotEncrypted
	}
	next, err := m.nextKeyring(op, key)
	if err == nil && op != KeyList {
		err = m.saveKeyring(next)
	}
	if err == nil {
		err = m.installKeyring(op, key)
	}
	if err != nil {
		reply.Error = err.Error()
	}
	for _, k := range m.keyring.GetKeys() {
		reply.Keys = append(reply.Keys, base64.StdEncoding.EncodeToString(k))
	}
	reply.Primary = base64.StdEncoding.EncodeToString(m.keyring.GetPrimaryKey())
	return reply, err
}

// nextKeyring is the keyring op would leave, primary first, or why op
// cannot apply here.
func (m *Membership) nextKeyring(op KeyOp, text string) ([][]byte, error) {
	keys := m.keyring.GetKeys() // primary first
	if op == KeyList {
		return keys, nil
	}
	key, err := parseKey(text)
	if err != nil {
		return nil, err
	}
	at := -1
	for i, k := range keys {
		if bytes.Equal(k, key) {
			at = i
		}
	}
	switch op {
	case KeyInstall:
		if at < 0 {
			keys = append(keys, key)
		}
	case KeyUse:
		if at < 0 {
			return nil, ErrKeyNotInstalled
		}
		keys = append([][]byte{key}, append(keys[:at:at], keys[at+1:]...)...)
	case KeyRemove:
		switch {
		case at == 0:
			return nil, ErrPrimaryKey
		case at > 0:
			keys = append(keys[:at:at], keys[at+1:]...)
		}
	default:
		return nil, fmt.Errorf("membership: unknown keyring operation %q", op)
	}
	return keys, nil
}

// installKeyring applies op to memberlist's keyring (already validated by
// nextKeyring).
func (m *Membership) installKeyring(op KeyOp, text string) error {
	if op == KeyList {
		return nil
	}
	key, err := parseKey(text)
	if err != nil {
		return err
	}
	switch op {
	case KeyInstall:
		return m.keyring.AddKey(key)
	case KeyUse:
		return m.keyring.UseKey(key)
	case KeyRemove:
		return m.keyring.RemoveKey(key)
	}
	return fmt.Errorf("membership: unknown keyring operation %q", op)
}

// saveKeyring writes keys to Config.KeyringFile (atomically), so a
// restart keeps the rotated keyring; no file means memory only.
func (m *Membership) saveKeyring(keys [][]byte) error {
	if m.cfg.KeyringFile == "" {
		return nil
	}
	if err := writeFileAtomic(m.cfg.KeyringFile, encodeKeyringFile(keys)); err != nil {
		return fmt.Errorf("membership: save the keyring to %s: %w", m.cfg.KeyringFile, err)
	}
	return nil
}
