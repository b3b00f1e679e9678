package modelcycle

import (
	"errors"
	"fmt"

	"keygate/domain/llm"
)

// Sentinel errors of a model cycle. Match them with errors.Is.
var (
	// ErrGrammar marks a stream that broke the event grammar. It is a
	// protocol failure and retryable.
	ErrGrammar = errors.New("model event grammar violated")
	// ErrEOFBeforeDone marks a stream that ended without Done. It is a
	// provider failure and retryable.
	ErrEOFBeforeDone = errors.New("provider stream reached EOF before Done")
	// ErrTruncated marks a cycle that finished with Length: the model
	// stopped before completing the response. It is terminal.
	ErrTruncated = errors.New("model stopped before completing the response")
	// ErrContentFiltered marks a prompt or an answer a provider's content
	// filter blocked. It is terminal: the same request is blocked again.
	ErrContentFiltered = errors.New("blocked by the provider's content filter")
)

// FilteredError is a cycle that finished with FinishContentFilter. It
// matches ErrContentFiltered.
type FilteredError struct {
	// Hits are the filter's categories, as the provider named them; empty
	// when it named none.
	Hits []llm.FilterHit
}

func (e *FilteredError) Error() string {
	if len(e.Hits) == 0 {
		return ErrContentFiltered.Error()
	}
	return ErrContentFiltered.Error() + " (" + llm.DescribeFilter(e.Hits) + ")"
}

// Is makes errors.Is(err, ErrContentFiltered) hold.
func (e *FilteredError) Is(target error) bool { return target == ErrContentFiltered }

// IsContentFiltered reports whether err is a content filter's block: a
// filtered answer (*FilteredError) or a provider error of class
// ErrorContentFilter (a filtered prompt).
func IsContentFiltered(err error) bool {
	if errors.Is(err, ErrContentFiltered) {
		return true
	}
	var pe *llm.ProviderError
	return errors.As(err, &pe) && pe.Class == llm.ErrorContentFilter
}

// GrammarError says which event broke the grammar and how. It matches
// ErrGrammar.
type GrammarError struct {
	Event  llm.EventKind
	Index  int
	Reason string
}

func (e *GrammarError) Error() string {
	return fmt.Sprintf("model event grammar violated at %s (index %d): %s", e.Event, e.Index, e.Reason)
}

// Is makes errors.Is(err, ErrGrammar) hold.
func (e *GrammarError) Is(target error) bool { return target == ErrGrammar }
