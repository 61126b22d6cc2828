package store

import (
	"runtime"
	"sync"
)

// checkedOp is the outcome of checkRemoteEvent for one op of a batch.
type checkedOp struct {
	clean Event
	parts metaParts
	err   error
}

// parallelCheckMin is the smallest batch whose ops are checked by several
// goroutines; below it, starting them costs more than it saves.
const parallelCheckMin = 256

// checkOps validates every op of a batch before the batch reaches the
// writer goroutine: validation needs no database, so it runs here, split
// over the cores for a large batch, and the single writer is left with
// the work only it can do.
func checkOps(ops []Op) []checkedOp {
	out := make([]checkedOp, len(ops))
	check := func(from, to int) {
		for i := from; i < to; i++ {
			out[i].clean, out[i].parts, out[i].err = checkRemoteEvent(ops[i].Event)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(ops)/(parallelCheckMin/2))
	if workers < 2 {
		check(0, len(ops))
		return out
	}
	var wg sync.WaitGroup
	per := (len(ops) + workers - 1) / workers
	for from := 0; from < len(ops); from += per {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			check(from, to)
		}(from, min(from+per, len(ops)))
	}
	wg.Wait()
	return out
}
