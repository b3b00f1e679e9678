package callrecord

import (
	"strings"
	"time"
)

// Request is the request of a detailed call as sent, minus credentials:
// credential headers are absent and keys are removed from the URL. The body
// is kept as sent (it holds user code, which detailed mode exists to show).
type Request struct {
	Method string
	URL    string
	// Headers are the recorded headers in canonical form, sorted by name.
	Headers []Header
	Body    []byte
}

// Header is one recorded request header.
type Header struct {
	Name  string
	Value string
}

// Chunk is one read of the raw response body of a detailed call.
type Chunk struct {
	// Seq numbers chunks from 0 in the order they were read.
	Seq int
	// Offset is the time since the request started when the chunk arrived.
	Offset time.Duration
	Data   []byte
}

// sensitiveHeaders are never recorded: they carry credentials or sessions.
var sensitiveHeaders = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"x-api-key":           true,
	"api-key":             true,
	"cookie":              true,
	"set-cookie":          true,
	// AWS's session token of temporary credentials (the signature itself
	// is in Authorization).
	"x-amz-security-token": true,
}

// SensitiveHeader reports whether a header (any case) carries credentials
// and must be left out of a recorded request.
func SensitiveHeader(name string) bool {
	return sensitiveHeaders[strings.ToLower(name)]
}

// sensitiveParams are URL query parameters that gateways use for keys.
var sensitiveParams = map[string]bool{
	"key":          true,
	"api-key":      true,
	"api_key":      true,
	"apikey":       true,
	"access_token": true,
	"token":        true,
	"sig":          true,
}

// SensitiveParam reports whether a URL query parameter (any case) carries a
// credential and must have its value removed from a recorded URL.
func SensitiveParam(name string) bool {
	return sensitiveParams[strings.ToLower(name)]
}
