package store

import (
	"errors"
	"strings"
)

// SQLite answers most errors inside a transaction by undoing the one
// statement, but on some (a full disk, an I/O error, no memory) it rolls
// the whole transaction back by itself. The writer must notice: the
// statements of the requests after that one would each commit on their
// own, and a caller told that its batch failed would find its write
// stored. So after a failed request the writer checks that its
// transaction is still open, and when it is not, it answers that request
// with its error and runs the rest of the batch again without it.

// errTransactionLost ends an attempt whose transaction SQLite rolled back
// by itself after a request's error.
var errTransactionLost = errors.New("the transaction was rolled back by SQLite after an error")

// maxLostTransactions bounds the reruns of one batch after lost
// transactions; past it (a disk that keeps failing) the batch fails as a
// whole, so that the writer answers its callers instead of retrying while
// new requests keep coming.
const maxLostTransactions = 4

// inTransaction reports whether the writer's transaction is still open. A
// BEGIN is refused inside a transaction; one that is accepted has started
// a new transaction, which the caller rolls back.
func (w *writeTx) inTransaction() bool {
	_, err := w.tx.ExecContext(w.ctx, "BEGIN")
	return err != nil && strings.Contains(err.Error(), "within a transaction")
}

// settleLast moves the last request that ran, the one whose failure cost
// the transaction, among the settled requests at the front of batch, with
// its answer.
func settleLast(batch []*writeReq, errs, settled []error) ([]*writeReq, []error) {
	i, n := len(errs)-1, len(settled)
	culprit := batch[i]
	copy(batch[n+1:i+1], batch[n:i])
	batch[n] = culprit
	return batch, append(settled, errs[i])
}
