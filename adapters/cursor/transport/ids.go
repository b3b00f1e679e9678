package transport

import (
	"math"
	"sync/atomic"
)

// idCounter hands out 1, 2, 3, ... up to MaxUint32 and then fails; 0 and
// reuse are impossible.
type idCounter struct{ last atomic.Uint64 }

func (c *idCounter) next() (uint32, error) {
	n := c.last.Add(1)
	if n > math.MaxUint32 {
		return 0, ErrIDsExhausted
	}
	return uint32(n), nil
}

// idCounters are a transport's three id spaces: exec ids, interaction query
// ids and KV message ids, each counted from 1 independently.
type idCounters struct {
	exec, interaction, kv idCounter
}
