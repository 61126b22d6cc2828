package rules

import (
	"regexp"
	"strings"
)

var (
	// commitRE is an abbreviated or full Git object id.
	commitRE = regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`)
	// slugRunRE is a run of characters a slug replaces with "_".
	slugRunRE = regexp.MustCompile(`[^a-z0-9]+`)
)

// maxSlug bounds a slug, in characters.
const maxSlug = 40

// TaskText validates a required task_create text field: a non-blank
// string, returned stripped. label names the field in the error, as the
// hub does: "project", "requesting agent" (from_agent), "destination
// agent" (to_agent), "branch", "goal", "definition of done" (done).
func TaskText(v any, label string) (string, error) {
	s, ok := v.(string)
	if !ok || pyStrip(s) == "" {
		return "", invalidf("task %s must not be empty", label)
	}
	return pyStrip(s), nil
}

// TaskBaseCommit validates task_create's base_commit: a non-blank string
// that, stripped, is 7 to 64 hex digits (an immutable object id, not a
// branch or tag). It is returned lowercased.
func TaskBaseCommit(v any) (string, error) {
	s, err := TaskText(v, "base commit")
	if err != nil {
		return "", err
	}
	if !commitRE.MatchString(s) {
		return "", invalidf("task base commit must be a hexadecimal Git object id (at least 7 characters), not a branch or tag")
	}
	return strings.ToLower(s), nil
}

// Slug is the hub's task label: lowercased, every run of characters
// outside [a-z0-9] turned into "_", "_" stripped from both ends, cut to 40
// characters and "_" stripped from the end again. It returns "" when
// nothing is left; the hub then uses "work" for a goal and "project" for
// a project.
func Slug(s string) string {
	slug := strings.Trim(slugRunRE.ReplaceAllString(pyLower(s), "_"), "_")
	if len(slug) > maxSlug { // all ASCII by now, so bytes are characters
		slug = slug[:maxSlug]
	}
	return strings.TrimRight(slug, "_")
}
