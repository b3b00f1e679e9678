package bidi

// Exported for the specs.
var (
	MayOpen         = mayOpen
	EncodeForwarded = encodeForwarded
)
