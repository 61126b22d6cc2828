package main

import (
	"testing"
)

// A 403 explains itself: an agent token's JSON refusal is shown as the
// node gave it; the page of a Host or Origin refusal has no JSON message.
func TestRefusal_Forbidden(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"error": "/metrics needs an admin token (the shared token or \"admin\": true in the tokens file); token \"pi\" is an agent token"}`,
			`403 Forbidden: /metrics needs an admin token (the shared token or "admin": true in the tokens file); token "pi" is an agent token`},
		{"<!DOCTYPE HTML>\n<html>...</html>", "403 Forbidden: the node refused this Host or Origin"},
	}
	for _, tc := range cases {
		if got := refusal(403, []byte(tc.body)).Error(); got != tc.want {
			t.Errorf("refusal(403, %.30q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}
