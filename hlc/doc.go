// Package hlc is lsnode's hybrid logical clock: the stamp format every op
// carries, and the clock that issues stamps for local ops and absorbs the
// stamps of remote ones.
//
// # Why a hybrid clock
//
// The coordination log is written on several replicas at once and merged
// everywhere into one order. Wall clocks alone cannot give that order: they
// drift, step backwards under NTP, and disagree between machines, so a
// reply could sort before the message it answers. Pure logical clocks
// (Lamport) give causality but lose all connection to real time, which
// people reading a log rely on. A hybrid logical clock, as described by
// Kulkarni, Demirbas, Madeppa, Avva and Leone in "Logical Physical Clocks
// and Consistent Snapshots in Globally Distributed Databases" (2014), keeps
// both: its wall part stays close to physical time, and a logical counter
// orders everything that happens within, or is squeezed into, one physical
// instant. The layout of this package (an injected WallClock, a manual
// clock for tests, history-table tests, this essay) follows CockroachDB's
// pkg/util/hlc; the code is lsnode's own.
//
// # Format
//
// A stamp is wall milliseconds since the Unix epoch, a 24-bit logical
// counter, and the id of the replica that issued it, written as
//
//	<ms: 13 decimal digits>-<counter: 6 lowercase hex digits>-<replica id>
//	1783038849123-000000-rep_ab12cd34ef56
//
// This is the Python hub's format (mempalace hlc.py) byte for byte. Both
// numeric fields have fixed width, so comparing two stamps as byte strings
// (SQLite TEXT, Python str, Go string) orders them by (ms, counter,
// replica), and Timestamp.Compare is that same order. The replica id breaks
// ties between replicas that stamp the same (ms, counter), so the merge
// order is total.
//
// Parse accepts what the hub's regular expression ^(\d{13})-([0-9a-f]{6})-(.+)$
// accepts, with two deliberate exceptions that would otherwise break the
// byte order: non-ASCII digits (Python's \d matches them) and a trailing
// newline (Python's $ matches before one) are rejected. Its error text is
// the hub's, "not a valid HLC string: " followed by Python's repr() of the
// input, and it wraps ErrInvalidStamp.
//
// # Where stamps come from
//
// Stamps enter a Clock through three doors:
//
//   - Tick, for every op this replica writes. The store calls it inside its
//     single writer, so stamp order and local origin_seq order agree.
//   - Observe, for every remote op applied, whatever carried it: the gRPC
//     replication streams between lsnode nodes, or the HTTP /sync/ops pull
//     from a Python hub.
//   - SeedOwn, once at start, with the greatest stamp this replica issued
//     before it stopped (the max stored hlc of its own origin).
//
// # Guarantees
//
// Strict monotonicity. Every stamp Tick returns is strictly greater than
// every stamp the clock issued before, every remote stamp it adopted, and
// every stamp it was seeded with, across goroutines: Tick never returns
// the same stamp twice. This holds when the wall clock steps backwards:
// the clock then keeps its millisecond and counts up until the wall clock
// passes it again.
//
// Causality. If an op was applied (and its stamp adopted) before a local
// op was written, the local op's stamp is greater. So a reply written
// after reading a message sorts after it on every replica.
//
// Bounded distance from physical time. The wall part of a ticked stamp is
// never behind the local wall clock at that Tick, and never ahead of the
// greatest of: the local wall clock, a remote wall time that was at most
// MaxOffset ahead when it was observed, or a seeded stamp (plus one
// millisecond for each time the counter ran out, see below). With all
// clocks within MaxOffset of each other, stamps stay within MaxOffset of
// real time.
//
// Restarts. A replica seeded with its own last stamp never issues a stamp
// at or below one it issued before, even if that stamp lies in the future
// (its wall clock was ahead, then corrected). The Python hub seeds from
// the greatest stamp of any origin and drops a seed more than 60 s in the
// future, restarting at (0, 0); that can make new local stamps sort before
// old ones. lsnode adopts its own seed unconditionally.
//
// # Hazards when assumptions break
//
// HAZARD: a remote clock far ahead. A remote stamp more than MaxOffset
// ahead of local wall time is not adopted: otherwise one bad clock would
// drag every replica's clock into the future, with no way back. The op is
// still stored (the log must converge), and Observe reports the offset so
// the caller logs and exports it. The price is causality for that op:
// a local op written right after it may sort before it. lsnode decides
// owed-ness by an op's causal context where it carries one (docs/architecture.md#owed-ness),
// so mostly the display and merge order suffer. The Python hub allows 60 s where
// lsnode's default is 500 ms, so Python peers can adopt stamps that lsnode
// refuses.
//
// HAZARD: the local clock far behind. If the local wall clock lags the
// fleet by more than MaxOffset, it refuses correct remote stamps as
// "beyond", and its own ops sort before ops that happened earlier
// elsewhere. The exported offset is the signal to fix time sync.
//
// HAZARD: a large backward step of the local wall clock. Stamps keep the
// last millisecond and count up. The counter holds 16,777,216 values per
// millisecond; when it is exhausted, the clock steps its millisecond
// forward on its own, so under sustained load the wall part drifts ahead
// of physical time until the wall clock catches up.
//
// HAZARD: a bad seed. SeedOwn trusts its argument. A stamp wrongly
// attributed to this replica, far in the future, pins the clock there;
// every later stamp carries that future time.
//
// HAZARD: the year 2286. At 10^13 ms the wall field needs a 14th digit.
// String still renders such a stamp (like Python's format), but it no
// longer parses and byte order breaks.
//
// # Concurrency
//
// A Clock is safe for concurrent use. Its state, (ms, counter), sits under
// one mutex held only for a few instructions; the WallClock is read before
// taking it and must not call back into the Clock. There is no other lock
// in the package, so no lock order to keep. ManualClock is also safe for
// concurrent use.
//
// Only SystemClock reads real time; everything else receives a WallClock,
// so tests drive clocks with a ManualClock and never sleep.
package hlc
