package edverify

import "filippo.io/edwards25519"

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

// signedDigits writes the little-endian scalar b as n digits d[i] with
// b = Σ d[i]·2^(w·i) and |d[i]| <= 2^(w-1): each window's w bits, less
// 2^w (and a carry into the next window) when they reach 2^(w-1). The
// last window lies above bit 256, so it holds only the last carry.
func signedDigits(d *[maxWindows]int16, b []byte, w uint, n int) []int16 {
	half := int16(1) << (w - 1)
	var carry int16
	for i := range n {
		v := int16(bitsAt(b, uint(i)*w, w)) + carry
		carry = 0
		if v >= half {
			v -= 2 * half
			carry = 1
		}
		d[i] = v
	}
	return d[:n]
}

// bitsAt returns the w bits of the little-endian b starting at bit pos;
// bits past the end of b are zero.
func bitsAt(b []byte, pos, w uint) uint32 {
	var v uint32
	for k := range w {
		p := pos + k
		if int(p/8) < len(b) && b[p/8]>>(p%8)&1 == 1 {
			v |= 1 << k
		}
	}
	return v
}
