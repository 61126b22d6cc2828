// Package proto holds lsnode's protocol buffer definitions
// (lsnode/v1/*.proto) and the Go code generated from them with protoc and
// the plugins pinned in the Makefile (protoc-gen-go v1.36.12,
// protoc-gen-go-grpc v1.5.1). The generated package is
// github.com/lsnode/lsnode/proto/lsnode/v1 (imported as lsnodev1). Generated
// files are committed; `make verify-proto` regenerates and fails on drift.
package proto

//go:generate sh -c "cd .. && protoc --plugin=protoc-gen-go=bin/protoc-gen-go --plugin=protoc-gen-go-grpc=bin/protoc-gen-go-grpc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative proto/lsnode/v1/replication.proto"
