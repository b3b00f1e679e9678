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
)

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
