// Package opsig signs and verifies replicated ops (origin integrity,). Each lsnode node holds an ed25519 key in its data dir
// (node.key) and signs its own ops when it serves them; every receiver
// verifies an origin's ops against the public key it pinned for that
// origin, so a relay can neither forge nor alter another origin's op.
//
// What is signed is a canonical, versioned, length-prefixed encoding of an
// op's content (Content): a domain-separation prefix, then every field the
// origin authored, the sha256 of each artifact the op names, and the
// metadata in its RFC 8785 form, so a relay's re-serialisation of the
// metadata does not break the signature. The sender-relative prev_seq and
// the local seq are not signed: they are each replica's own view.
package opsig
