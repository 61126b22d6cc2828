package rules

import (
	"regexp"
	"unicode/utf8"
)

// eventTypeRE is the event type grammar: a dotted lowercase identifier.
var eventTypeRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// Routing validates a routing field (stream, room, topic, from_agent,
// to_agent, correlation_id, branch, base_commit, created_by, event_id,
// artifact_id, since_event_id, before_event_id, origin). nil and "" are
// absent: ("", nil) when optional, an error when required. Anything else
// must be a string that is not blank; it is stripped, must be at most 256
// code points, and must hold no character below U+0020 nor U+007F.
func Routing(v any, field string, required bool) (string, error) {
	if v == nil || v == "" {
		if required {
			return "", invalidf("%s must be a non-empty string", field)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok || pyStrip(s) == "" {
		return "", invalidf("%s must be a non-empty string", field)
	}
	s = fixSurrogates(pyStrip(s))
	if utf8.RuneCountInString(s) > MaxRouting {
		return "", invalidf("%s exceeds maximum length of %d characters", field, MaxRouting)
	}
	if hasControl(s) {
		return "", invalidf("%s contains control characters", field)
	}
	return s, nil
}

// EventType validates an event type: a non-blank string that, stripped,
// matches ^[a-z0-9][a-z0-9_.-]{0,63}$.
func EventType(v any) (string, error) {
	s, ok := v.(string)
	if !ok || pyStrip(s) == "" {
		return "", invalidf("type must be a non-empty string")
	}
	s = pyStrip(s)
	if !eventTypeRE.MatchString(s) {
		return "", invalidf("type=%s is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)", Repr(s))
	}
	return s, nil
}
