package llm

// Has reports whether every field in f is known.
func (u Usage) Has(f UsageFields) bool { return u.Known&f == f }

// ContextInput is the whole prompt the provider read:
// Input + CacheRead + CacheWrite, unknown parts counting as zero. It is the
// authoritative context size compaction compares with the window.
func (u Usage) ContextInput() int64 { return u.Input + u.CacheRead + u.CacheWrite }

// Total is ContextInput plus Output (reasoning is already inside Output).
func (u Usage) Total() int64 { return u.ContextInput() + u.Output }

// Add sums two usages, for example every cycle of a run. A count one side
// does not know counts as zero for the sum, and the sum knows every count
// either side knows: a field stays unknown only when neither reported it, so
// a late-reported count is never discarded.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Input:      u.Input + o.Input,
		CacheRead:  u.CacheRead + o.CacheRead,
		CacheWrite: u.CacheWrite + o.CacheWrite,
		Output:     u.Output + o.Output,
		Reasoning:  u.Reasoning + o.Reasoning,
		Known:      u.Known | o.Known,
	}
}
