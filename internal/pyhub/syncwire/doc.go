// Package syncwire is the Python hub's replication protocol, the /sync/*
// routes, as one definition of each request and answer: the parameters of
// /sync/ops and /sync/artifact and the hub's checks of them, and the
// bodies of /sync/version_vector, /sync/ops, /sync/artifact and
// /sync/peers in the hub's key order (docs/compatibility.md, sync routes
// and pull protocol).
//
// The servers, node/httpapi and sync/fakehub, build their answers with
// the JSON methods and write them with pyjson.Compact, which makes them
// byte for byte the hub's. The pullers, sync/hubpull and sync/fakehub's
// Python engine, build their requests with URL and the Params functions
// and read the answers with the Decode functions, which keep what they
// do not interpret (profiles, event dicts, artifact records) as raw JSON.
package syncwire
