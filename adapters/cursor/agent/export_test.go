package agent

// What the specs need of the package's insides: the error mapping and the
// failure classes it reads.
var (
	ConnectError      = connectError
	Classify          = classify
	ErrInvalidRequest = errInvalidRequest
	ErrClientBlob     = errClientBlob
	ErrUnavailable    = errUnavailable
	ErrRunCancelled   = errRunCancelled
	ErrStreamLost     = errStreamLost
)

// NewArgStream follows streamed tool-call arguments for the content of
// keys; Feed yields what each piece decodes to.
func NewArgStream(keys ...string) *argStream { return newArgStream(keys) }

// Feed is argStream.feed.
func (s *argStream) Feed(text string) string { return s.feed(text) }
