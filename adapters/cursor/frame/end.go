package frame

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/anypb"
)

// endStream is the JSON payload of the end-of-stream frame. Empty message and
// details are omitted and no metadata key is written, as the client saw it.
type endStream struct {
	Error *endError `json:"error,omitempty"`
}

type endError struct {
	Code    string      `json:"code"`
	Message string      `json:"message,omitempty"`
	Details []endDetail `json:"details,omitempty"`
}

type endDetail struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// MalformedEndError reports an end-of-stream payload that is not the
// expected JSON.
type MalformedEndError struct {
	Payload []byte
	Err     error
}

func (e *MalformedEndError) Error() string {
	return fmt.Sprintf("malformed end-of-stream %q: %v", e.Payload, e.Err)
}

func (e *MalformedEndError) Unwrap() error { return e.Err }

// EndPayload returns the end-of-stream JSON for err: `{}` for nil; for a
// *connect.Error its code, message and details (type name, value in standard
// base64 without padding); any other error becomes code internal with its text.
func EndPayload(err error) []byte {
	if err == nil {
		return []byte("{}")
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		ce = connect.NewError(connect.CodeInternal, err)
	}
	out := endError{Code: ce.Code().String(), Message: ce.Message()}
	for _, d := range ce.Details() {
		out.Details = append(out.Details, endDetail{
			Type:  d.Type(),
			Value: base64.RawStdEncoding.EncodeToString(d.Bytes()),
		})
	}
	b, mErr := json.Marshal(endStream{Error: &out})
	if mErr != nil {
		// Only strings are marshalled; this cannot fail.
		panic(mErr)
	}
	return b
}

// EndFrame returns the whole end-of-stream frame for err.
func EndFrame(err error) []byte {
	return Encode(FlagEndStream, EndPayload(err))
}

// ParseEnd decodes an end-of-stream payload: nil for success, otherwise a
// *connect.Error whose details decode with the generated types that are
// linked into the binary (ErrorDetail.Value). A malformed payload yields
// *MalformedEndError.
func ParseEnd(payload []byte) (*connect.Error, error) {
	var es endStream
	if err := json.Unmarshal(payload, &es); err != nil {
		return nil, &MalformedEndError{Payload: payload, Err: err}
	}
	if es.Error == nil {
		return nil, nil
	}
	var code connect.Code
	if err := code.UnmarshalText([]byte(es.Error.Code)); err != nil {
		code = connect.CodeUnknown
	}
	ce := connect.NewError(code, errors.New(es.Error.Message))
	for _, d := range es.Error.Details {
		raw, err := decodeBase64(d.Value)
		if err != nil {
			return nil, &MalformedEndError{Payload: payload, Err: err}
		}
		det, err := connect.NewErrorDetail(&anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type, Value: raw})
		if err != nil {
			return nil, &MalformedEndError{Payload: payload, Err: err}
		}
		ce.AddDetail(det)
	}
	return ce, nil
}

// decodeBase64 accepts the unpadded standard alphabet the server writes and,
// leniently, the padded form.
func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("decode detail value: %w", err)
	}
	return b, nil
}
