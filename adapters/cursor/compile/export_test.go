package compile

import (
	"crypto/sha256"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// ActionNames lists the registered conversation actions, in match order.
func ActionNames() []string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.name
	}
	return names
}

// MCPContextText is the MCP channel's text of rc, rendering input schemas
// through schemas.
func MCPContextText(rc *agentv1.RequestContext, schemas *Schemas) string {
	c, _ := mcpContext(rc, rc.GetTools(), schemas)
	return c.Text
}

// Holds reports whether the cache holds v's rendering.
func (c *Schemas) Holds(v *structpb.Value) bool {
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(v)
	if err != nil {
		panic(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byKey[sha256.Sum256(raw)]
	return ok
}
