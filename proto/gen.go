// Package proto holds lsnode's protocol buffer definitions
// (lsnode/v1/*.proto) and the Go code generated from them with protoc and
// the plugins pinned in the Makefile (protoc-gen-go v1.36.12,
// protoc-gen-go-grpc v1.5.1). The generated packages are
// github.com/lsnode/lsnode/proto/lsnode/v1 (the messages, imported as
// lsnodev1 or pb) and .../proto/lsnode/v1/lsnodev1grpc (the service, which
// alone imports gRPC). Generated files are committed; `make proto` (or go
// generate here) regenerates them and `make verify-proto` fails on drift.
package proto

//go:generate ../scripts/proto.sh gen ../bin
