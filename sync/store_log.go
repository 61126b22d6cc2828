package lssync

import "github.com/lsnode/lsnode/store"

// StoreLog adapts a *store.Store to Log.
func StoreLog(s *store.Store) Log { return storeLog{s} }

type storeLog struct{ *store.Store }

var _ ArtifactFeed = storeLog{} // the store keeps the artifact feed

// Subscribe returns the store's subscription as a Subscription.
func (l storeLog) Subscribe(buffer int) Subscription { return l.Store.Subscribe(buffer) }
