package routing

// KeyStrategy is how a provider picks among its enabled keys.
type KeyStrategy uint8

// Key strategies.
const (
	// KeysRoundRobin takes the keys in turn.
	KeysRoundRobin KeyStrategy = iota + 1
	// KeysWeighted draws a key at random in proportion to its weight.
	KeysWeighted
)

// String returns the stored name.
func (s KeyStrategy) String() string {
	switch s {
	case KeysRoundRobin:
		return "round_robin"
	case KeysWeighted:
		return "weighted"
	default:
		return "unknown"
	}
}

// ParseKeyStrategy reads a stored name; "" and unknown names are
// round-robin, the default.
func ParseKeyStrategy(s string) KeyStrategy {
	if s == KeysWeighted.String() {
		return KeysWeighted
	}
	return KeysRoundRobin
}

// TargetStrategy is how an alias orders its targets.
type TargetStrategy uint8

// Target strategies.
const (
	// TargetsOrdered tries the targets in the configured order: the first
	// healthy one serves, the others are fallbacks.
	TargetsOrdered TargetStrategy = iota + 1
	// TargetsWeighted spreads new conversations over the healthy targets in
	// proportion to their weights; the rest follow as fallbacks.
	TargetsWeighted
)

// String returns the stored name.
func (s TargetStrategy) String() string {
	switch s {
	case TargetsOrdered:
		return "ordered"
	case TargetsWeighted:
		return "weighted"
	default:
		return "unknown"
	}
}

// ParseTargetStrategy reads a stored name; "" and unknown names are
// ordered, the default.
func ParseTargetStrategy(s string) TargetStrategy {
	if s == TargetsWeighted.String() {
		return TargetsWeighted
	}
	return TargetsOrdered
}
