package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/lsnode/lsnode/node/sseclient"
)

// Bodies are free text, control characters included: a table row shows
// its first line without them, so a CRLF body, a tab or an escape
// sequence cannot move the cursor, recolour the terminal or break the row.
func TestEventTables_ControlCharactersInBodies(t *testing.T) {
	bodies := []string{"crlf\r\nsecond line", "a lone\rreturn", "tab\there", "esc\x1b[31mred", "csi\u009b31mred", "bell\a"}
	var events []wireEvent
	var list, tail bytes.Buffer
	print := tablePrinter(&tail)
	for i, b := range bodies {
		e := wireEvent{ID: "evt_" + string(rune('a'+i)), Seq: int64(i + 1), Type: "note", Stream: "s", Room: "r", FromAgent: "alice", Body: b}
		events = append(events, e)
		data, _ := json.Marshal(e)
		if err := print(sseclient.Frame{ID: e.ID, Data: string(data)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := printEvents(&list, events); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"events list": list.String(), "events tail": tail.String()} {
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if want := len(bodies); name == "events list" && len(lines) != want+1 || name == "events tail" && len(lines) != want {
			t.Errorf("%s: %d lines for %d events:\n%s", name, len(lines), want, out)
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }); i >= 0 {
			t.Errorf("%s: control character %q in the table:\n%q", name, out[i:i+1], out)
		}
	}
}

// A body's trailing line break (a --body-file ending in a newline) is
// not more text: the row shows no "…".
func TestOneLine_TrailingNewline(t *testing.T) {
	for body, want := range map[string]string{"done\n": "done", "done\r\n\n": "done", "done\nmore": "done …"} {
		if got := oneLine(body, bodyWidth); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", body, got, want)
		}
	}
}
