package integrity

import (
	"bytes"
	"testing"
)

func TestSigCache_EvictsOldestFirst(t *testing.T) {
	c := newSigCache(3)
	for seq := int64(1); seq <= 3; seq++ {
		c.put(seq, []byte{byte(seq)})
	}
	c.put(2, []byte{99}) // already held: kept as it was
	c.put(4, []byte{4})  // evicts 1
	c.put(5, []byte{5})  // evicts 2
	for seq, want := range map[int64][]byte{1: nil, 2: nil, 3: {3}, 4: {4}, 5: {5}} {
		if got := c.get(seq); !bytes.Equal(got, want) {
			t.Errorf("seq %d: %v, want %v", seq, got, want)
		}
	}
	if len(c.sigs) != 3 {
		t.Errorf("%d entries held, want 3", len(c.sigs))
	}
}
