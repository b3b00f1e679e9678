package relstore

import (
	"encoding/json"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

// The parse functions below turn the status names the stores persist (each
// type's String) back into values; an unknown name yields the zero value.
// Adapters use them in their row conversion functions.

// ParseRunStatus parses a ports.RunStatus name.
func ParseRunStatus(s string) ports.RunStatus { return parseName(s, ports.RunFailed) }

// ParseCallStatus parses a callrecord.Status name.
func ParseCallStatus(s string) callrecord.Status { return parseName(s, callrecord.StatusCancelled) }

// ParseFinish parses an llm.FinishReason name ("" for none).
func ParseFinish(s string) llm.FinishReason { return parseName(s, llm.FinishContentFilter) }

// ParseErrorClass parses an llm.ErrorClass name ("" for none).
func ParseErrorClass(s string) llm.ErrorClass { return parseName(s, llm.ErrorContentFilter) }

// NameOf is the stored name of an enum value; the zero value is "".
func NameOf[T interface {
	~uint8
	String() string
}](v T) string {
	if v == 0 {
		return ""
	}
	return v.String()
}

func parseName[T interface {
	~uint8
	String() string
}](s string, last T) T {
	for v := T(1); v <= last; v++ {
		if v.String() == s {
			return v
		}
	}
	return 0
}

// UsageColumns is llm.Usage as the six integer columns both schemas use.
type UsageColumns struct {
	Input, CacheRead, CacheWrite, Output, Reasoning, Known int64
}

// ColumnsOf splits u into columns.
func ColumnsOf(u llm.Usage) UsageColumns {
	return UsageColumns{u.Input, u.CacheRead, u.CacheWrite, u.Output, u.Reasoning, int64(u.Known)}
}

// Usage joins columns back into an llm.Usage.
func (c UsageColumns) Usage() llm.Usage {
	return llm.Usage{
		Input: c.Input, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite,
		Output: c.Output, Reasoning: c.Reasoning, Known: llm.UsageFields(c.Known),
	}
}

// JSONOrNull stores an absent JSON value as the JSON null.
func JSONOrNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return v
}

// NullToNil reads the JSON null back as an absent value.
func NullToNil(v []byte) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// NonNil makes an absent byte slice an empty one for NOT NULL columns.
func NonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// EmptyToNil reads an empty NOT NULL byte column back as an absent value.
func EmptyToNil(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}
