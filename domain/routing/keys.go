package routing

import (
	"slices"
	"time"
)

// Key is one enabled key of a pool, as the picker needs it.
type Key struct {
	ID string
	// Weight is the key's share under KeysWeighted; below 1 counts as 1.
	Weight int
}

// KeyOrder returns the order in which one call tries keys: the keys that
// are not cooling first, in strategy order, then the cooling ones, the
// soonest back first, as a last resort. Round-robin starts at turn (a
// counter the caller advances per call) and goes around; weighted draws
// without replacement, each pick in proportion to the weights left, with
// draw(n) returning a uniform integer in [0, n).
func KeyOrder(keys []Key, s KeyStrategy, health map[string]Health, now time.Time, turn uint64, draw func(n int) int) []Key {
	var ready, resting []Key
	for _, k := range keys {
		if health[KeySubject(k.ID)].Cooling(now) {
			resting = append(resting, k)
		} else {
			ready = append(ready, k)
		}
	}
	if s == KeysWeighted {
		ready = weighted(ready, func(k Key) int { return k.Weight }, draw)
	} else if n := len(ready); n > 0 {
		start := int(turn % uint64(n))
		ready = append(ready[start:len(ready):len(ready)], ready[:start]...)
	}
	slices.SortStableFunc(resting, func(a, b Key) int {
		return health[KeySubject(a.ID)].CoolUntil.Compare(health[KeySubject(b.ID)].CoolUntil)
	})
	return append(ready, resting...)
}

// weighted orders items by repeated weighted draws without replacement.
func weighted[T any](items []T, weight func(T) int, draw func(n int) int) []T {
	left := slices.Clone(items)
	out := make([]T, 0, len(items))
	for len(left) > 0 {
		total := 0
		for _, it := range left {
			total += max(weight(it), 1)
		}
		pick, at := draw(total), 0
		for i, it := range left {
			if at += max(weight(it), 1); pick < at {
				out = append(out, it)
				left = slices.Delete(left, i, i+1)
				break
			}
		}
	}
	return out
}
