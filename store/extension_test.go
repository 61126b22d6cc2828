package store

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// TestClientMeta_JoinMatchesOnePass checks that metadata encoded ahead
// of the writer and joined with an extension there is byte for byte the
// text pyjson.Dumps renders of the whole object in one go, over seeded
// random metadata whose keys sort before, after and around ExtensionKey.
func TestClientMeta_JoinMatchesOnePass(t *testing.T) {
	keys := []string{"", "a", "ack_of", "Z", "_", "_a", "_lsnoda", "_lsnodee", "_m", "`", "é", "日本", "\U0001f600", "z\n\"q"}
	values := []any{"x", "é\u2028\"\\", json.Number("12"), json.Number("1.5"), true, nil,
		[]any{json.Number("1"), "two"}, map[string]any{"b": json.Number("1"), "a": []any{}}}
	exts := []extension{{}, {Idem: "key-1"}, {Ctx: map[string]int64{}}, {Ctx: map[string]int64{"rep_b": 3, "rep_a": 12}},
		{Ctx: map[string]int64{"rep_a": 1}, Idem: "ü \"quoted\""}, {Ctx: map[string]int64{"ü\"x\\": 7, "\x01": -1, "~": 0}, Idem: "\n\u2028"}}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 2000; i++ {
		obj := map[string]any{}
		for n := rng.IntN(5); n > 0; n-- {
			obj[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
		}
		ext := exts[rng.IntN(len(exts))]
		enc, err := encodeClientMeta(obj)
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.join(ext)
		if err != nil {
			t.Fatal(err)
		}
		want, err := onePassMetadata(copyMeta(obj), ext)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("case %d (%v, %+v):\n got %s\nwant %s", i, fmt.Sprint(obj), ext, got, want)
		}
	}
}

// onePassMetadata is the reference: the extension put into the object as
// a map, and the whole encoded by pyjson.Dumps.
func onePassMetadata(obj map[string]any, ext extension) ([]byte, error) {
	if !ext.empty() {
		x := map[string]any{}
		if ext.Ctx != nil {
			ctx := make(map[string]any, len(ext.Ctx))
			for k, v := range ext.Ctx {
				ctx[k] = json.Number(fmt.Sprint(v))
			}
			x["ctx"] = ctx
		}
		if ext.Idem != "" {
			x["idem"] = ext.Idem
		}
		obj[ExtensionKey] = x
	}
	return pyjson.Dumps(obj)
}
