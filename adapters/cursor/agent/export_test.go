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
