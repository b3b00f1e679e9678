package routing

import (
	"fmt"
	"slices"
	"time"
)

// Route is what a routed id (a model or an alias Cursor's picker shows)
// stands for: one or more targets.
type Route struct {
	ID string
	// Alias is false for a model routed to itself, its only target.
	Alias    bool
	Strategy TargetStrategy
	// FirstTokenTimeout moves a call on when its first output has not come
	// this long after the request was sent, while another target is left;
	// 0 never does.
	FirstTokenTimeout time.Duration
	Targets           []TargetRef
}

// TargetRef is one target of a route: a model configuration, with its
// share of new conversations and whether an administrator drained it.
type TargetRef struct {
	ModelID string
	Weight  int
	Drained bool
}

// Target is a target resolved for a call: where its keys are and what
// limits it has.
type Target struct {
	// ModelID is the model configuration; UpstreamModel the id the
	// provider knows the model by.
	ModelID       string
	UpstreamModel string
	ProviderID    string
	ProviderName  string
	KeyStrategy   KeyStrategy
	// KeyRest is how long a refused key rests without Retry-After.
	KeyRest time.Duration
	// Keys are the provider's enabled keys in pool order.
	Keys []Key
	// RequestsPerMinute and TokensPerMinute limit the target; 0 is none.
	RequestsPerMinute int64
	TokensPerMinute   int64
}

// Plan is the order in which one call tries a route's targets, and why
// the first of them is not where the conversation was (empty when it is,
// or when the conversation is new on this route).
type Plan struct {
	Targets []TargetRef
	Moved   string
}

// PlanTargets orders the targets of r for one call. Drained targets are
// left out. A sticky target (the one that served the conversation's last
// call on r) comes first while it is not resting; the other targets that
// are not resting follow in the strategy's order (ordered: as configured;
// weighted: drawn in proportion to their weights, draw(n) uniform in
// [0, n)), and the resting ones last, the soonest back first, as a last
// resort. busy reports targets that must not take the call now (over a
// per-minute limit); they go with the resting ones.
func PlanTargets(r Route, health map[string]Health, sticky string, now time.Time, busy func(modelID string) bool,
	draw func(n int) int) Plan {
	if busy == nil {
		busy = func(string) bool { return false }
	}
	resting := func(t TargetRef) bool { return health[TargetSubject(t.ModelID)].Cooling(now) || busy(t.ModelID) }
	var ready, rest []TargetRef
	var stuck *TargetRef
	moved := ""
	if sticky != "" {
		moved = fmt.Sprintf("the conversation's target %s left the alias", sticky)
	}
	for _, t := range r.Targets {
		if t.ModelID == sticky {
			switch {
			case t.Drained:
				moved = fmt.Sprintf("an administrator drained the conversation's target %s", sticky)
			case resting(t):
				moved = fmt.Sprintf("the conversation's target %s is resting%s", sticky, after(health[TargetSubject(t.ModelID)]))
			default:
				moved, stuck = "", &t
			}
		}
		switch {
		case t.Drained || (stuck != nil && stuck.ModelID == t.ModelID):
		case resting(t):
			rest = append(rest, t)
		default:
			ready = append(ready, t)
		}
	}
	if r.Strategy == TargetsWeighted {
		ready = weighted(ready, func(t TargetRef) int { return t.Weight }, draw)
	}
	slices.SortStableFunc(rest, func(a, b TargetRef) int {
		return health[TargetSubject(a.ModelID)].CoolUntil.Compare(health[TargetSubject(b.ModelID)].CoolUntil)
	})
	var order []TargetRef
	if stuck != nil {
		order = append(order, *stuck)
	}
	order = append(append(order, ready...), rest...)
	return Plan{Targets: order, Moved: moved}
}

// after names a resting target's last error, for a move's cause.
func after(h Health) string {
	if h.LastError == "" {
		return ""
	}
	return " after: " + h.LastError
}
