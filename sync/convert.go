package lssync

import (
	"encoding/json"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// OpToWire converts a store op to its wire form. Seq (local arrival order)
// does not travel.
func OpToWire(op store.Op) *pb.Op {
	e := op.Event
	return &pb.Op{
		Id:            e.ID,
		OriginReplica: e.OriginReplica,
		OriginSeq:     e.OriginSeq,
		PrevSeq:       op.PrevSeq,
		Hlc:           e.HLC,
		Type:          e.Type,
		Stream:        e.Stream,
		Room:          e.Room,
		Topic:         e.Topic,
		FromAgent:     e.FromAgent,
		ToAgent:       e.ToAgent,
		CorrelationId: e.CorrelationID,
		Branch:        e.Branch,
		BaseCommit:    e.BaseCommit,
		Status:        e.Status,
		ArtifactIds:   e.ArtifactIDs,
		Body:          e.Body,
		CreatedAt:     e.CreatedAt,
		Metadata:      []byte(e.Metadata),
		Signature:     op.Signature,
	}
}

// OpFromWire converts a wire op to a store op.
func OpFromWire(w *pb.Op) store.Op {
	return store.Op{
		PrevSeq:   w.GetPrevSeq(),
		Signature: w.GetSignature(),
		Event: store.Event{
			ID:            w.GetId(),
			OriginReplica: w.GetOriginReplica(),
			OriginSeq:     w.GetOriginSeq(),
			HLC:           w.GetHlc(),
			Type:          w.GetType(),
			Stream:        w.GetStream(),
			Room:          w.GetRoom(),
			Topic:         w.GetTopic(),
			FromAgent:     w.GetFromAgent(),
			ToAgent:       w.GetToAgent(),
			CorrelationID: w.GetCorrelationId(),
			Branch:        w.GetBranch(),
			BaseCommit:    w.GetBaseCommit(),
			Status:        w.GetStatus(),
			ArtifactIDs:   w.GetArtifactIds(),
			Body:          w.GetBody(),
			CreatedAt:     w.GetCreatedAt(),
			Metadata:      rawJSON(w.GetMetadata()),
		},
	}
}

// artifactToWire converts a store artifact to its wire form.
func artifactToWire(a store.Artifact) *pb.Artifact {
	return &pb.Artifact{
		Id:            a.ID,
		Kind:          a.Kind,
		Sha256:        a.SHA256,
		SizeBytes:     a.SizeBytes,
		Content:       a.Content,
		CreatedBy:     a.CreatedBy,
		CreatedAt:     a.CreatedAt,
		OriginReplica: a.OriginReplica,
		Metadata:      []byte(a.Metadata),
	}
}

// artifactFromWire converts a wire artifact to a store artifact.
func artifactFromWire(w *pb.Artifact) store.Artifact {
	return store.Artifact{
		ID:            w.GetId(),
		Kind:          w.GetKind(),
		SHA256:        w.GetSha256(),
		SizeBytes:     w.GetSizeBytes(),
		Content:       w.GetContent(),
		CreatedBy:     w.GetCreatedBy(),
		CreatedAt:     w.GetCreatedAt(),
		OriginReplica: w.GetOriginReplica(),
		Metadata:      rawJSON(w.GetMetadata()),
	}
}

// batchFromWire converts a wire batch to a store batch.
func batchFromWire(b *pb.Batch) store.Batch {
	out := store.Batch{
		Artifacts: make([]store.Artifact, 0, len(b.GetArtifacts())),
		Ops:       make([]store.Op, 0, len(b.GetOps())),
	}
	for _, a := range b.GetArtifacts() {
		out.Artifacts = append(out.Artifacts, artifactFromWire(a))
	}
	for _, op := range b.GetOps() {
		out.Ops = append(out.Ops, OpFromWire(op))
	}
	return out
}

// rawJSON returns nil for empty input, so an absent metadata stays absent.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}
