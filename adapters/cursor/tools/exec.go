package tools

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// describe renders a non-success result for the model: the variant's name
// and fields, so the model learns why (not found, rejected, ...).
func describe(what string, m proto.Message) string {
	b, err := protojson.MarshalOptions{}.Marshal(m)
	if err != nil {
		return what + " failed"
	}
	return what + " failed: " + string(b)
}
