package tools

import (
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// exec builds the call's exec: its id is the call id, and the client may
// add hook contexts to it.
func (c *Call) exec(set func(*agentv1.ExecServerMessage)) Action {
	accept := true
	m := &agentv1.ExecServerMessage{ExecId: c.call.CallID, AcceptHookAdditionalContexts: &accept}
	set(m)
	return Action{Exec: m}
}

func (c *Call) optInt(key string) *int32 {
	if n, ok := c.num(key); ok {
		v := int32(n)
		return &v
	}
	return nil
}

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
