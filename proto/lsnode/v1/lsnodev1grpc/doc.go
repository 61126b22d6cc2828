// Package lsnodev1grpc is the generated gRPC code of lsnode's node-to-node
// protocol (../replication_service.proto): the Replication service, whose
// Session stream carries the lsnodev1 frames. It is apart from package
// lsnodev1 so that code working on frames alone (the replication core,
// sync/) does not link gRPC. Everything here except this file is
// generated; see ../../../gen.go.
package lsnodev1grpc
