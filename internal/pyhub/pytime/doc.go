// Package pytime holds the Python hub's time texts: the UTC stamp of
// created_at, advertised_at and the estate's timestamps, the stamp inside
// event and artifact ids, and datetime.isoformat() of a local time, which
// /statusz shows. Every layout lsnode shares with the hub is defined here
// once (docs/compatibility.md). It also reads the hub's periods, float
// seconds in MEMPALACE_SYNC_INTERVAL and MEMPALACE_SYNC_HTTP_TIMEOUT, as
// the hub reads them (seconds.go).
package pytime
