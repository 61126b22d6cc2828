package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// On ASCII a table lays out exactly as text/tabwriter did (two spaces of
// padding), so scripts that cut columns by position see no change.
func TestTable_ASCIIAsTabwriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for round := 0; round < 200; round++ {
		var tb table
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 8, 2, ' ', 0)
		cols := 1 + rng.IntN(5)
		for r := 0; r < 1+rng.IntN(6); r++ {
			cells := make([]string, cols)
			for i := range cells {
				cells[i] = strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(12))
			}
			tb.row(cells...)
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := tb.write(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("round %d:\ngot\n%q\nwant (tabwriter)\n%q", round, got.String(), want.String())
		}
	}
}

// Wide characters take two columns and combining marks none: the cells
// after a name in Chinese, Japanese or with accents stay in line.
func TestTable_WideAndCombiningCharacters(t *testing.T) {
	var tb table
	tb.row("AGENT", "EVENTS")
	tb.row("审查员", "3")        // three wide characters: six columns
	tb.row("ｆｕｌｌ", "4")       // fullwidth Latin: eight columns
	tb.row("cafe\u0301", "5") // "café" with a combining accent: four columns
	tb.row("alice", "6")
	var out bytes.Buffer
	if err := tb.write(&out); err != nil {
		t.Fatal(err)
	}
	want := "AGENT     EVENTS\n" +
		"审查员    3\n" +
		"ｆｕｌｌ  4\n" +
		"cafe\u0301      5\n" +
		"alice     6\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if col := cellWidth(line[:strings.LastIndex(line, " ")+1]); col != 10 {
			t.Errorf("%q: second column starts at %d, want 10", line, col)
		}
	}
}

// A body is cut to the table's width in columns, not runes, and never
// splits a wide character.
func TestOneLine_CutsByColumns(t *testing.T) {
	wide := strings.Repeat("字", 40) // 80 columns
	got := oneLine(wide, bodyWidth)
	if w := cellWidth(got); w > bodyWidth {
		t.Fatalf("cut to %d columns, more than %d: %q", w, bodyWidth, got)
	}
	if want := strings.Repeat("字", 29) + "…"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := oneLine(strings.Repeat("字", 30), bodyWidth); got != strings.Repeat("字", 30) {
		t.Fatalf("a body of exactly %d columns was cut: %q", bodyWidth, got)
	}
}
