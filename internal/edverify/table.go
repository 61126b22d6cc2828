package edverify

import (
	"encoding/binary"

	"filippo.io/edwards25519"
)

// table holds the multiples of a point P for fixed-window scalar
// multiplication: rows[i][j] = (j+1)·2^(w·i)·P, one row per window of w
// bits of a 256-bit scalar and one more for the final carry, with
// 2^(w-1) entries a row (the magnitudes of the signed digits).
type table struct {
	w    uint
	rows [][]edwards25519.Point
}

func newTable(p *edwards25519.Point, w uint) *table {
	t := &table{w: w, rows: make([][]edwards25519.Point, windows(w))}
	base := new(edwards25519.Point).Set(p)
	for i := range t.rows {
		row := make([]edwards25519.Point, 1<<(w-1))
		row[0].Set(base)
		for j := 1; j < len(row); j++ {
			row[j].Add(&row[j-1], base)
		}
		t.rows[i] = row
		for range w {
			base.Double(base)
		}
	}
	return t
}

// windows is the number of signed digits of width w that a scalar below
// 2^256 needs: one per w bits, and one for the last carry.
func windows(w uint) int { return (256+int(w)-1)/int(w) + 1 }

// mulAdd adds [s]P (sign +1) or [-s]P (sign -1) to acc.
func (t *table) mulAdd(acc *edwards25519.Point, s *edwards25519.Scalar, sign int) {
	var d [maxWindows]int16
	digits := signedDigits(&d, s.Bytes(), t.w, len(t.rows))
	for i, v := range digits {
		if v == 0 {
			continue
		}
		neg := v < 0
		if neg {
			v = -v
		}
		if neg == (sign > 0) {
			acc.Subtract(acc, &t.rows[i][v-1])
		} else {
			acc.Add(acc, &t.rows[i][v-1])
		}
	}
}

// maxWindows bounds windows(w) for the widths used (w >= 4).
const maxWindows = 65

// signedDigits writes the little-endian 32-byte scalar b as n digits
// d[i] with b = Σ d[i]·2^(w·i) and |d[i]| <= 2^(w-1): each window's w
// bits, less 2^w (and a carry into the next window) when they reach
// 2^(w-1). The last window lies above bit 256, so it holds only the last
// carry.
func signedDigits(d *[maxWindows]int16, b []byte, w uint, n int) []int16 {
	var words [5]uint64 // b as little-endian words, and a zero one past it
	for i := range 4 {
		words[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	half, mask := int16(1)<<(w-1), uint64(1)<<w-1
	var carry int16
	for i := range n {
		pos := uint(i) * w
		v := carry
		if q, r := pos/64, pos%64; q < 4 {
			bits := words[q] >> r
			if r+w > 64 {
				bits |= words[q+1] << (64 - r)
			}
			v += int16(bits & mask)
		}
		carry = 0
		if v >= half {
			v -= 2 * half
			carry = 1
		}
		d[i] = v
	}
	return d[:n]
}
