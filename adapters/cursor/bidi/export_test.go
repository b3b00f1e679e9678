package bidi

// Exported for the specs.
var (
	MayOpen         = mayOpen
	EncodeForwarded = encodeForwarded
)

// Pump and MaxUnflushed, for the specs of how a stream's frames are flushed.
var Pump = pump

const MaxUnflushed = maxUnflushed
