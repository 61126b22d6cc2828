package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// AckEventType is the type of the event Ack appends.
const AckEventType = "event.ack"

// Ack appends an event.ack for a target event, which is never mutated. It
// copies the target's stream, room and (unless given) topic, routes back to
// the target's writer, joins the target's correlation thread (or the
// target's id) and records metadata {"ack_of": <target id>}.
func (s *Store) Ack(ctx context.Context, in AckInput) (Written, error) {
	id, err := rules.Routing(in.EventID, "event_id", true)
	if err != nil {
		return Written{}, wrapRule(err)
	}
	target, err := s.eventByID(ctx, id)
	if err != nil {
		return Written{}, err
	}
	topic := in.Topic
	if topic == "" && !in.ClearTopic {
		topic = target.Topic
	}
	corr := target.CorrelationID
	if corr == "" {
		corr = target.ID
	}
	meta, err := json.Marshal(map[string]string{"ack_of": id})
	if err != nil {
		return Written{}, fmt.Errorf("encode ack metadata: %w", err)
	}
	return s.Append(ctx, AppendInput{
		Type: AckEventType, Stream: target.Stream, Room: target.Room, Topic: topic,
		FromAgent: in.FromAgent, ToAgent: target.FromAgent, CorrelationID: corr,
		Status: in.Status, Body: in.Body, Metadata: meta, IdempotencyKey: in.IdempotencyKey,
	})
}

// eventByID reads one event; a missing id is the hub's not-found error
// (rules.EventNotFound).
func (s *Store) eventByID(ctx context.Context, id string) (Event, error) {
	evs, err := queryEvents(ctx, s.reads.pool(), `SELECT `+eventColumns+` FROM events WHERE id = ?`, id)
	if err != nil {
		return Event{}, err
	}
	if len(evs) == 0 {
		return Event{}, notFound(rules.EventNotFound(id))
	}
	return evs[0], nil
}
