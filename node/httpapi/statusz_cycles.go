package httpapi

import (
	"context"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// statuszCycles is how many wait-for cycles /statusz lists: a few, so
// that the document stays small and the search short (GET /lsnode/cycles
// lists more).
const statuszCycles = 5

// cyclesPart is the wait_for_cycles member of /statusz: the first
// statuszCycles wait-for cycles among the asks scope may read, each its
// agents in wait order (as GET /lsnode/cycles gives them) and the id of
// the oldest ask of each wait, with their count and whether more may
// exist. It is null for a log without the view.
func (s *Server) cyclesPart(ctx context.Context, scope *store.ReadScope) (any, error) {
	cv, ok := s.store.(cyclesLog)
	if !ok {
		return nil, nil
	}
	res, err := cv.Cycles(ctx, store.CycleQuery{Limit: statuszCycles, Scope: scope})
	if err != nil {
		return nil, err
	}
	cycles := make([]any, len(res.Cycles))
	for i, c := range res.Cycles {
		agents, edges := waitOrder(c)
		asks := make([]any, len(edges))
		for j, e := range edges {
			if len(e.Asks) > 0 {
				asks[j] = e.Asks[0]
			}
		}
		cycles[i] = pyjson.Object{{Key: "agents", Value: agents}, {Key: "asks", Value: asks}}
	}
	return pyjson.Object{
		{Key: "count", Value: len(cycles)}, {Key: "truncated", Value: res.Truncated}, {Key: "cycles", Value: cycles},
	}, nil
}
