package rules

// Status validates an event status: nil and "" are absent (""); anything
// else must be exactly (unstripped) one of the seven statuses.
func Status(v any) (string, error) {
	if v == nil || v == "" {
		return "", nil
	}
	s, ok := v.(string)
	if !ok || !isStatus(s) {
		return "", invalidf("status=%s is not one of: applied, blocked, claimed, failed, open, ready, superseded", ReprValue(v))
	}
	return s, nil
}

func isStatus(s string) bool {
	switch s {
	case "open", "claimed", "ready", "applied", "blocked", "failed", "superseded":
		return true
	}
	return false
}

// IsTerminal reports whether a status ends a task's life: applied,
// superseded, failed or blocked.
func IsTerminal(status string) bool {
	switch status {
	case "applied", "superseded", "failed", "blocked":
		return true
	}
	return false
}

// ArtifactKind validates an artifact kind: exactly one of file, json, log,
// note, patch.
func ArtifactKind(v any) (string, error) {
	s, ok := v.(string)
	switch {
	case !ok:
	case s == "file", s == "json", s == "log", s == "note", s == "patch":
		return s, nil
	}
	return "", invalidf("kind=%s is not one of: file, json, log, note, patch", ReprValue(v))
}
