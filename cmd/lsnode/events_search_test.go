package main

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var (
	searchHeader = append([]string{"RANK"}, eventHeader...)
	rowNote      = []string{"4", "2026-12-01T10:02:00Z", "note", "dave", "-", "-", "project/y/ops", "<note>", "rotate logs, rotate often"}
	rowAnnAsk    = []string{"1", "2026-12-01T10:00:00Z", "task.request", "ann", "ben", "-", "project/x/delegation", "<annAsk>", "rotate the signing keys"}
	rowBenAsk    = []string{"2", "2026-12-01T10:01:00Z", "task.request", "ben", "cat", "-", "project/x/delegation", "<benAsk>", "review the rotate script"}
	rowCatAsk    = []string{"3", "2026-12-01T10:02:00Z", "task.request", "cat", "ann", "-", "project/x/delegation", "<catAsk>", "deploy after rotate"}
)

// ranked prefixes rows with their rank.
func ranked(rows ...[]string) [][]string {
	out := [][]string{searchHeader}
	for i, r := range rows {
		out = append(out, append([]string{strconv.Itoa(i + 1)}, r...))
	}
	return out
}

// TestEventsSearch_Table: `lsnode events search` prints the matches the
// token may read, best first with their rank, filtered as a list is; an
// unknown agent matches nothing.
func TestEventsSearch_Table(t *testing.T) {
	f := startViewsNode(t)
	for _, tc := range []struct {
		name    string
		token   string // "ann" or the shared token
		args    []string
		rows    [][]string
		trailer string
	}{
		{"ranked", "", []string{"rotate"}, ranked(rowNote, rowCatAsk, rowAnnAsk, rowBenAsk),
			"4 matches, best first; later matches with --cursor <cursor>"},
		{"stream", "", []string{"rotate", "--stream=project/x"}, ranked(rowCatAsk, rowAnnAsk, rowBenAsk),
			"3 matches, best first; later matches with --cursor <cursor>"},
		{"room and type", "", []string{"rotate", "--room=ops", "--type=note"}, ranked(rowNote),
			"1 match, best first; later matches with --cursor <cursor>"},
		{"writer", "", []string{"--writer=ben", "rotate"}, ranked(rowBenAsk),
			"1 match, best first; later matches with --cursor <cursor>"},
		{"to", "", []string{"rotate", "--to=ann"}, ranked(rowCatAsk),
			"1 match, best first; later matches with --cursor <cursor>"},
		{"unknown writer", "", []string{"rotate", "--writer=nobody"}, ranked(),
			"0 matches, best first; later matches with --cursor <cursor>"},
		{"field query", "", []string{"from_agent:cat rotate"}, ranked(rowCatAsk),
			"1 match, best first; later matches with --cursor <cursor>"},
		{"hlc", "", []string{"rotate", "--order=hlc"}, [][]string{eventHeader, rowAnnAsk, rowBenAsk, rowCatAsk, rowNote},
			"4 matches, oldest first; resume with --cursor <cursor>"},
		{"ann's scope", "ann", []string{"rotate"}, ranked(rowCatAsk, rowAnnAsk),
			"2 matches, best first; later matches with --cursor <cursor>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token := f.shared
			if tc.token == "ann" {
				token = f.ann
			}
			code, out, errOut := f.run(t, token, append([]string{"events", "search"}, tc.args...)...)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			rows, trailer := tableOf(f.named(out))
			if !reflect.DeepEqual(rows, tc.rows) || len(trailer) != 1 || trailer[0] != tc.trailer {
				t.Errorf("got\n%s\nwant rows %q and %q", f.named(out), tc.rows, tc.trailer)
			}
		})
	}
}

// searchPage is the --json answer of a search.
type searchPage struct {
	Events []struct {
		ID string `json:"id"`
	} `json:"events"`
	Count  int    `json:"count"`
	Cursor string `json:"cursor"`
}

func (p searchPage) names(f *viewsFixture) []string {
	names := []string{}
	for _, e := range p.Events {
		names = append(names, f.named(e.ID))
	}
	return names
}

// TestEventsSearch_JSONPaging: --json prints the node's page; in HLC
// order each page's cursor, printed under the table, resumes after it
// until no match is left.
func TestEventsSearch_JSONPaging(t *testing.T) {
	f := startViewsNode(t)
	var page searchPage
	out := mustCLI(t, "events", "search", "rotate", "--json", f.addr, "--token-file="+f.shared)
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := []string{"<note>", "<catAsk>", "<annAsk>", "<benAsk>"}; !reflect.DeepEqual(page.names(f), want) || page.Count != 4 || page.Cursor == "" {
		t.Fatalf("--json: %s; want %v, count 4 and a cursor", f.named(out), want)
	}

	var got [][]string
	cursor := ""
	for range 4 {
		args := []string{"events", "search", "rotate", "--order=hlc", "--limit=2", f.addr, "--token-file=" + f.shared}
		if cursor != "" {
			args = append(args, "--cursor="+cursor)
		}
		out := mustCLI(t, args...)
		rows, trailer := tableOf(out)
		var ids []string
		for _, r := range rows[1:] {
			ids = append(ids, f.named(r[7]))
		}
		got = append(got, ids)
		last := trailer[len(trailer)-1]
		_, next, ok := strings.Cut(last, "; resume with --cursor ")
		if !ok {
			t.Fatalf("no cursor in %q", last)
		}
		if len(ids) == 0 {
			break
		}
		cursor = next
	}
	if want := [][]string{{"<annAsk>", "<benAsk>"}, {"<catAsk>", "<note>"}, nil}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pages %q; want %q", got, want)
	}
}

// TestEventsSearch_Errors: the node's refusal of a malformed query is
// printed as it gave it (exit 1); a missing or empty query, an unknown
// order, a negative limit and an unknown flag are usage errors (exit 2).
// Neither prints anything on stdout.
func TestEventsSearch_Errors(t *testing.T) {
	f := startViewsNode(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{`"open`}, exitFailure, "lsnode events: 400 Bad Request: search query '\"open' is malformed: a quote is not closed\n"},
		{[]string{"deploy OR"}, exitFailure, "lsnode events: 400 Bad Request: search query 'deploy OR' is malformed"},
		{nil, exitUsage, "give the search query as one argument"},
		{[]string{"rotate", "keys"}, exitUsage, "give the search query as one argument"},
		{[]string{" "}, exitUsage, "the search query is empty"},
		{[]string{"rotate", "--order=newest"}, exitUsage, `--order must be rank or hlc, not "newest"`},
		{[]string{"rotate", "--limit=-1"}, exitUsage, "--limit must not be negative"},
		{[]string{"rotate", "--from=ann"}, exitUsage, "flag provided but not defined: --from"},
	} {
		code, out, errOut := f.run(t, f.shared, append([]string{"events", "search"}, tc.args...)...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
}

// TestViews_UnknownAgentsAreEmpty: a view of an agent the log never
// names answers empty, not an error.
func TestViews_UnknownAgentsAreEmpty(t *testing.T) {
	f := startViewsNode(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"events", "search", "rotate", "--to=nobody"}, "0 matches, best first"},
		{[]string{"events", "search", "rotate", "--writer=nobody", "--order=hlc"}, "0 matches, oldest first"},
		{[]string{"awaiting", "--agent=nobody"}, "0 asks awaiting a reply"},
	} {
		code, out, errOut := f.run(t, f.shared, tc.args...)
		if rows, trailer := tableOf(out); code != exitOK || errOut != "" || len(rows) != 1 || len(trailer) != 1 || !strings.HasPrefix(trailer[0], tc.want) {
			t.Errorf("%q: exit %d\n%s%s", tc.args, code, out, errOut)
		}
	}
}
