package main

import (
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// columnGap is the space between two columns of a table.
const columnGap = "  "

// table lays rows of cells out in columns, each as wide as its widest
// cell plus columnGap; a row's last cell is not padded. Widths are
// terminal columns, not runes: text/tabwriter counts runes, so a name in
// Chinese or Japanese (two columns a character) pushed the rest of its
// row out of line.
type table struct {
	rows [][]string
}

// row adds a row of cells.
func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

// write writes the table to w.
func (t *table) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, cell := range r[:max(len(r)-1, 0)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], cellWidth(cell))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, cell := range r {
			if i == len(r)-1 {
				b.WriteString(cell)
				break
			}
			b.WriteString(padRight(cell, widths[i]))
			b.WriteString(columnGap)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// padRight pads s with spaces to n terminal columns.
func padRight(s string, n int) string {
	if w := cellWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// cellWidth is how many terminal columns s takes.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is the terminal columns of r: none for combining marks and
// format characters (a zero-width joiner, say), two for East Asian wide
// and fullwidth characters, one for the rest.
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// cutToWidth is the longest prefix of s that fits n terminal columns.
func cutToWidth(s string, n int) string {
	used := 0
	for i, r := range s {
		if used += runeWidth(r); used > n {
			return s[:i]
		}
	}
	return s
}
