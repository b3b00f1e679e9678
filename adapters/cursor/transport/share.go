package transport

import (
	"crypto/sha256"
	"runtime"
	"sync"
	"weak"

	"google.golang.org/protobuf/encoding/protowire"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// sharedContexts lets the run requests whose user message carries the same
// request context (the same bytes on the wire: a workspace's rules,
// skills, MCP tools, layout, as every turn of its conversations sends
// them until one changes) hold one decoded RequestContext instead of one
// each for as long as their turns run. It holds weak pointers only: an
// entry goes once no request holds its context. The shared context is
// read-only, as every run request is once decoded.
type sharedContexts struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]weak.Pointer[agentv1.RequestContext]
}

func newSharedContexts() *sharedContexts {
	return &sharedContexts{m: map[[sha256.Size]byte]weak.Pointer[agentv1.RequestContext]{}}
}

// share replaces the request context of msg's user message action with a
// live one decoded from the same bytes, or records it as the one to share.
func (c *sharedContexts) share(msg *agentv1.AgentClientMessage, raw []byte) {
	um := msg.GetRunRequest().GetAction().GetUserMessageAction()
	rc := um.GetRequestContext()
	if rc == nil {
		return
	}
	// AgentClientMessage.run_request (1), AgentRunRequest.action (2),
	// ConversationAction.user_message_action (1),
	// UserMessageAction.request_context (2).
	b, ok := onlyField(raw, 1, 2, 1, 2)
	if !ok {
		return
	}
	key := sha256.Sum256(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[key]; ok {
		if v := p.Value(); v != nil {
			um.RequestContext = v
			return
		}
	}
	c.m[key] = weak.Make(rc)
	runtime.AddCleanup(rc, c.forget, key)
}

// forget drops key's entry once its context is gone (not when another,
// live one took its place).
func (c *sharedContexts) forget(key [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[key]; ok && p.Value() == nil {
		delete(c.m, key)
	}
}

// size is the number of contexts shared now.
func (c *sharedContexts) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// onlyField returns the bytes of the message field at path (field numbers,
// outermost first) in b; ok is false when a field on the path is absent,
// appears more than once (its decoded value would be a merge of the
// occurrences), or b does not parse.
func onlyField(b []byte, path ...protowire.Number) ([]byte, bool) {
	for _, want := range path {
		var found []byte
		seen := false
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				return nil, false
			}
			b = b[n:]
			if num == want && typ == protowire.BytesType {
				v, m := protowire.ConsumeBytes(b)
				if m < 0 || seen {
					return nil, false
				}
				found, seen = v, true
				b = b[m:]
				continue
			}
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return nil, false
			}
			b = b[m:]
		}
		if !seen {
			return nil, false
		}
		b = found
	}
	return b, true
}
