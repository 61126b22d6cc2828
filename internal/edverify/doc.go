// Package edverify verifies Ed25519 signatures for a public key that
// signs many messages, such as an origin whose every op a node checks.
//
// It decides exactly as crypto/ed25519.Verify does (RFC 8032 with
// cofactorless verification, S < l, the top three bits of the signature
// clear): both compute the point [S]B - [k]A with k = SHA-512(R || A ||
// M) mod l and compare its canonical encoding with R. Only the way the
// two scalar multiplications are done differs. The standard library
// shares about 253 point doublings between [S]B and [k]A and adds table
// entries of A built for each call; here the multiples of A are built
// once per key (NewKey) and those of B once per process, in tables of
// one window per w bits of the scalar, so a multiplication is one
// addition per non-zero signed digit and no doubling. A verification
// costs about 40 % of the standard library's; a key's tables take about
// 140 KiB and 0.3 ms to build, the base point's about 660 KiB once.
//
// Everything here is public data (keys, messages, signatures), so the
// arithmetic is variable-time, as the standard library's verification
// is. The curve arithmetic is filippo.io/edwards25519's, the standard
// library's own code published as a module.
package edverify
