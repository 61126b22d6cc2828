package mcp

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/internal/eventpage"
	"github.com/lsnode/lsnode/store"
)

// Tool names, as the Python hub spells them.
const (
	toolEventAppend = "mempalace_event_append"
	toolEventList   = "mempalace_event_list"
	toolEventWait   = "mempalace_event_wait"
	toolEventAck    = "mempalace_event_ack"
	toolEventOwed   = "mempalace_event_owed"
	toolAwaiting    = "mempalace_event_awaiting"
	toolSearch      = "mempalace_event_search"
	toolArtifactPut = "mempalace_artifact_put"
	toolArtifactGet = "mempalace_artifact_get"
	toolPatchSubmit = "mempalace_patch_submit"
	toolTaskCreate  = "mempalace_task_create"
	toolMeshPeers   = "mempalace_mesh_peers"
)

// catalog lists every tool in tools/list order.
func catalog() []*toolSpec {
	return []*toolSpec{
		eventAppendSpec(), taskCreateSpec(), eventListSpec(), eventWaitSpec(), eventAckSpec(),
		eventOwedSpec(), awaitingSpec(), searchSpec(), artifactPutSpec(), artifactGetSpec(), patchSubmitSpec(), meshPeersSpec(),
	}
}

func eventAppendSpec() *toolSpec {
	return &toolSpec{
		name:  toolEventAppend,
		title: "Append an event",
		desc: "Append one immutable coordination event to the log: delegate work (task.request), reply " +
			"(task.reply), announce an artifact (patch.ready). Events are never edited; a correction is a " +
			"new event. Returns the stored event. Limits (in the schema too): type " + eventTypeRule[:len(eventTypeRule)-1] +
			"; routing fields 256 characters; body 262144 bytes; metadata 65536 bytes (64 KiB) as canonical JSON.",
		writer: true,
		props: []toolProp{
			eventTypeProp("Event type, e.g. 'task.request', 'task.reply', 'patch.ready'."),
			routingProp("stream", "Logical stream, e.g. 'project/mempalace'."),
			routingProp("room", "Sub-channel, e.g. 'delegation', 'patches', 'reviews', 'status'."),
			routingProp("topic", "Optional topic grouping related work, e.g. 'auth-v2'."),
			routingProp("from_agent", "Your agent identity (the writer)."),
			routingProp("to_agent", "Optional target agent; '*' broadcasts (a broadcast is never owed)."),
			routingProp("correlation_id", "Optional task or conversation id tying requests and replies."),
			routingProp("branch", "Optional Git branch."),
			routingProp("base_commit", "Optional Git commit the work started from."),
			statusProp("Optional status; applied, superseded, failed and blocked close a task."),
			textProp("body", "Optional human-readable content.", rules.MaxBodyBytes),
			metadataProp("Optional structured fields, stored verbatim."),
			prop("artifact_ids", &jsonschema.Schema{
				Type:        "array",
				Items:       &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(rules.MaxRouting)},
				Description: "Optional ids of artifacts already stored (mempalace_artifact_put); unknown ids are refused.",
			}),
			idempotencyProp(),
		},
		required: []string{"type", "stream", "room", "from_agent"},
		out:      writeOutput(prop("event", eventSchema())),
		run:      (*toolSet).eventAppend,
	}
}

func taskCreateSpec() *toolSpec {
	return &toolSpec{
		name:  toolTaskCreate,
		title: "Create a task",
		desc: "Create one complete task.request for another agent (stream project/<project>, room " +
			"delegation, status open, a fresh correlation id) and return the stored event plus a " +
			"one-line handoff to paste to the worker. Preview the exact task with the user first.",
		writer: true,
		props: []toolProp{
			stringProp("project", fmt.Sprintf("Project routing name; the stream is project/<slug>, the slug at most 40 characters. "+
				"At most %d characters.", rules.MaxRouting), rules.MaxRouting),
			routingProp("from_agent", "Your agent identity (the requester)."),
			routingProp("to_agent", "The worker agent's identity."),
			stringProp("goal", taskTextDesc("The task goal, verbatim."), rules.MaxBodyBytes),
			routingProp("branch", "Git branch for the work."),
			prop("base_commit", &jsonschema.Schema{
				Type:        "string",
				Pattern:     `^\s*[0-9a-fA-F]{7,64}\s*$`,
				MaxLength:   ptr(rules.MaxRouting),
				Description: "Immutable hexadecimal commit id (7 to 64 hex digits) the worker starts from; branch and tag names are refused.",
			}),
			stringProp("done", taskTextDesc("The definition of done, verbatim."), rules.MaxBodyBytes),
			idempotencyProp(),
		},
		required: []string{"project", "from_agent", "to_agent", "goal", "branch", "base_commit", "done"},
		out:      writeOutput(prop("task", eventSchema()), prop("handoff", stringSchema("One line to paste to the worker."))),
		run:      (*toolSet).taskCreate,
	}
}

// filterProps are the filters event_list and event_wait share.
func filterProps() []toolProp {
	return []toolProp{
		routingProp("stream", "Only events of this stream."),
		routingProp("room", "Only events of this room."),
		routingProp("topic", "Only events of this topic."),
		prop("type", &jsonschema.Schema{
			Type:        "string",
			Pattern:     `^\s*([a-z0-9][a-z0-9_.-]{0,63})?\s*$`,
			MaxLength:   ptr(rules.MaxRouting),
			Description: "Only events of this type: " + eventTypeRule,
		}),
		routingProp("to_agent", "Only events addressed to this agent; '*' broadcasts match too."),
		stringProp("from_agent", fmt.Sprintf("Your agent identity. It never filters: to filter by who wrote an event use writer. "+
			"At most %d characters.", rules.MaxRouting), rules.MaxRouting),
		routingProp("writer", "Only events written by this agent."),
		routingProp("correlation_id", "Only events of this correlation id."),
		statusProp("Only events with this status."),
		routingProp("since_event_id", "Only events strictly after this event in this node's arrival order. "+
			"Resume with it (or with cursor), never with since_created_at."),
	}
}

func sinceCreatedAtProp() toolProp {
	return prop("since_created_at", &jsonschema.Schema{
		Type:      "string",
		MaxLength: ptr(len("YYYY-MM-DDTHH:MM:SS+00:00")),
		Description: "Time window, inclusive: events created at or after this UTC time (YYYY-MM-DD or " +
			"YYYY-MM-DDTHH:MM:SSZ; +00:00 for Z is accepted). Not a resume cursor: an event replicated late can be older than it.",
	})
}

func eventListSpec() *toolSpec {
	props := append(filterProps(),
		routingProp("before_event_id", "Only events strictly before this event in this node's arrival order (paging back)."),
		sinceCreatedAtProp(),
		limitProp("Most events to return."),
		enumProp("order", "'asc' (oldest first) or 'desc' (newest first). Default: 'asc' when resuming "+
			"with since_event_id or cursor, else 'desc'.", "asc", "desc"),
		prop("preview", &jsonschema.Schema{
			Type: "boolean",
			Description: "Cut each body to its first 200 characters (adds body_truncated and body_length) " +
				"to scan a busy stream cheaply. Default false.",
		}),
		cursorProp("Portable resume token from a previous result's \"cursor\": returns only events that "+
			"token has not covered, on any node of the mesh."),
	)
	return &toolSpec{
		name:  toolEventList,
		title: "List events",
		desc: "List coordination events with structured filters (all ANDed). Returns {events, count, " +
			"cursor}; pass cursor back to resume on any node without skipping or repeating events " +
			"(after an oldest-first page; the cursor of a newest-first page marks all held now). " +
			"to_agent=<you> also matches '*' broadcasts; writer=<agent> filters by who wrote an event; " +
			"from_agent is your identity and never filters. To wait for new events use mempalace_event_wait.",
		props: props,
		out:   pageOutput(false),
		run:   (*toolSet).eventList,
	}
}

func eventWaitSpec() *toolSpec {
	props := append(filterProps(),
		sinceCreatedAtProp(),
		timeoutProp(),
		limitProp("Most events to return when some match."),
		cursorProp("Portable resume token from a previous list or wait result: waits for events that token has not covered."),
	)
	return &toolSpec{
		name:  toolEventWait,
		title: "Wait for events",
		desc: "Wait until an event matching the filters exists, then return the matches oldest first " +
			"({timed_out: false, events, count, cursor}). Without since_event_id or cursor any existing " +
			"match returns at once. On timeout returns {timed_out: true, events: [], count: 0}: a normal " +
			"result; call again with since_event_id or cursor. The server wakes on the commit, it does not poll. " +
			"A client whose tool calls time out (often after 60 s, the default wait) should pass a timeout_ms below " +
			"its timeout, e.g. 50000; a call with a progressToken from a client that accepts text/event-stream " +
			"is answered as a stream with a progress notification every 10 s while it waits.",
		props: props,
		out:   pageOutput(true),
		run:   (*toolSet).eventWait,
	}
}

func eventAckSpec() *toolSpec {
	return &toolSpec{
		name:  toolEventAck,
		title: "Acknowledge an event",
		desc: "Acknowledge an event: appends a new event.ack routed back to its writer, in its stream, " +
			"room and correlation thread, with metadata {ack_of: <id>}. The target is never changed.",
		writer: true,
		props: []toolProp{
			routingProp("event_id", "Id of the event to acknowledge."),
			routingProp("from_agent", "Your agent identity."),
			statusProp("Optional status; applied, superseded, failed and blocked close the task."),
			textProp("body", "Optional notes.", rules.MaxBodyBytes),
			routingProp("topic", "Optional topic; defaults to the target's."),
			idempotencyProp(),
		},
		required: []string{"event_id", "from_agent"},
		out:      writeOutput(prop("event", eventSchema())),
		run:      (*toolSet).eventAck,
	}
}

func eventOwedSpec() *toolSpec {
	return &toolSpec{
		name:  toolEventOwed,
		title: "Events owed a reply",
		desc: "The events an agent still owes a reply to: addressed to it (never a broadcast), written " +
			"by someone else, and not yet closed by a later event of its own with a terminal status " +
			"(applied, superseded, failed, blocked) acking the event or sharing its correlation id. " +
			"Oldest first, each the event with status (the thread's latest: the agent's latest claimed or " +
			"ready reply, else the event's own), claimed_by, claimed_from (the replica the earliest claim " +
			"came through) and claim_conflict (claims came through two or more replicas). " +
			"The same answer on every converged node. Returns {events, count}.",
		props: []toolProp{
			routingProp("agent", "The agent whose owed events to list."),
			routingProp("stream", "Only events of this stream."),
			limitProp("Most events to return."),
		},
		required: []string{"agent"},
		out:      owedOutput(),
		run:      (*toolSet).eventOwed,
	}
}

func awaitingSpec() *toolSpec {
	return &toolSpec{
		name:  toolAwaiting,
		title: "Asks awaiting a reply",
		desc: "The asks an agent wrote that their addressees still owe (mempalace_event_owed seen from the " +
			"asker's side), oldest first, each the event with age_s, addressee, last_heard (the addressee's " +
			"newest stamp, or null), status (the thread's latest), claimed_by, claimed_from and claim_conflict. " +
			"older_than keeps the overdue ones. Returns {asks, count}.",
		props: []toolProp{
			viewRoutingProp("agent", "The asker whose awaited asks to list."),
			viewRoutingProp("stream", "Only asks of this stream."),
			stringProp("older_than", fmt.Sprintf("Only asks at least this old: a duration such as 90s, 30m or 2h. "+
				"At most %d characters.", store.MaxDurationChars), store.MaxDurationChars),
			limitProp("Most asks to return."),
		},
		required: []string{"agent"},
		out:      awaitingOutput(),
		run:      (*toolSet).eventAwaiting,
	}
}

func searchSpec() *toolSpec {
	return &toolSpec{
		name:  toolSearch,
		title: "Search events",
		desc: "Full-text search of the events' bodies and routing fields, with a list's filters (all ANDed). " +
			"order 'rank' (default) puts the best matches first; 'hlc' orders them oldest first, and its " +
			"cursor resumes after the page on any node. Returns {events, count, cursor}; a malformed query " +
			"is refused naming it.",
		props: []toolProp{
			stringProp("query", fmt.Sprintf("The words or \"phrases\" to search for. At most %d characters.",
				store.MaxSearchQueryChars), store.MaxSearchQueryChars),
			viewRoutingProp("stream", "Only events of this stream."),
			viewRoutingProp("room", "Only events of this room."),
			filterProps()[3], // type
			viewRoutingProp("from_agent", "Only events written by this agent."),
			viewRoutingProp("to_agent", "Only events addressed to this agent; '*' broadcasts match too."),
			enumProp("order", "'rank' (best first, the default) or 'hlc' (oldest first).", eventpage.SearchRank, eventpage.SearchHLC),
			cursorProp("Portable resume token from a previous search's \"cursor\"."),
			limitProp("Most events to return."),
		},
		required: []string{"query"},
		out:      pageOutput(false),
		run:      (*toolSet).eventSearch,
	}
}

// viewRoutingProp is a routing argument of a coordination view, bounded
// by the store's view limits.
func viewRoutingProp(name, desc string) toolProp {
	p := routingProp(name, desc)
	p.schema.MaxLength = ptr(store.MaxRoutingChars)
	return p
}

func artifactPutSpec() *toolSpec {
	return &toolSpec{
		name:  toolArtifactPut,
		title: "Store an artifact",
		desc: "Store exact artifact content (a unified diff, file, log, JSON or note) for a handoff. " +
			"Returns its id, sha256 and size_bytes; patches that git apply would reject get warnings.",
		writer: true,
		props: []toolProp{
			enumProp("kind", "Artifact kind.", artifactKinds...),
			textProp("content", "Exact content, non-empty UTF-8 text.", rules.MaxContentBytes),
			routingProp("created_by", "Your agent identity."),
			metadataProp("Optional structured fields, e.g. branch and base_commit."),
			idempotencyProp(),
		},
		required: []string{"kind", "content", "created_by"},
		out:      writeOutput(prop("artifact", artifactPutSchema())),
		run:      (*toolSet).artifactPut,
	}
}

func artifactGetSpec() *toolSpec {
	return &toolSpec{
		name:  toolArtifactGet,
		title: "Fetch an artifact",
		desc:  "Fetch an artifact by id: exact content, sha256 and metadata.",
		props: []toolProp{
			routingProp("artifact_id", "Id of the artifact."),
		},
		required: []string{"artifact_id"},
		out:      artifactGetOutput(),
		run:      (*toolSet).artifactGet,
	}
}

func patchSubmitSpec() *toolSpec {
	return &toolSpec{
		name:  toolPatchSubmit,
		title: "Submit a patch",
		desc: "Store a patch artifact and append its patch.ready event (status ready) in one " +
			"transaction: both are stored or neither. Use it to hand finished work to another agent.",
		writer: true,
		props: []toolProp{
			textProp("content", "The unified diff, byte-exact with its trailing newline.", rules.MaxContentBytes),
			routingProp("from_agent", "Your agent identity."),
			routingProp("stream", "Logical stream, e.g. 'project/mempalace'."),
			routingProp("room", "Sub-channel. Default 'patches'."),
			routingProp("topic", "Optional topic."),
			routingProp("to_agent", "Optional target agent, or '*'."),
			routingProp("correlation_id", "Optional task id tying the patch to its request."),
			routingProp("branch", "Optional Git branch."),
			routingProp("base_commit", "Optional Git commit the patch applies to."),
			textProp("body", "Optional notes.", rules.MaxBodyBytes),
			metadataProp("Optional structured fields, stored on both the artifact and the event."),
			idempotencyProp(),
		},
		required: []string{"content", "from_agent", "stream"},
		out:      writeOutput(prop("artifact", artifactPutSchema()), prop("event", eventSchema())),
		run:      (*toolSet).patchSubmit,
	}
}

func meshPeersSpec() *toolSpec {
	return &toolSpec{
		name:  toolMeshPeers,
		title: "Mesh peers",
		desc: "Mesh snapshot: this node's replica id and version vector, and each peer's reachability, " +
			"last sync and replication lag. The same payload as GET /sync/peers; never includes tokens.",
		out: meshPeersOutput(),
		run: (*toolSet).meshPeers,
	}
}

// artifactKinds are the kinds of artifact the store takes.
var artifactKinds = []string{"patch", "file", "log", "json", "note"}

// eventTypeRule is the rule of an event type, as the store checks it.
const eventTypeRule = "lowercase letters, digits, '.', '_' and '-'; starts with a letter or digit; at most 64 characters " +
	"(^[a-z0-9][a-z0-9_.-]{0,63}$ once trimmed)."

// taskTextDesc describes goal and done: they are stored in the task's
// body, which the body limit bounds.
func taskTextDesc(desc string) string {
	return fmt.Sprintf("%s Goal and done together, with the task's fixed text, form the event's body: at most %d bytes of UTF-8.",
		desc, rules.MaxBodyBytes)
}
