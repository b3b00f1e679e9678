package conversation

import (
	"bytes"
	"crypto/sha256"

	"keygate/domain/llm"
)

// MessageSpec is the input of [NewMessage]. Exactly one of Parts, Assistant
// and ToolResult is set, matching Role: Parts for system and user messages,
// Assistant for assistant messages, ToolResult for tool messages.
type MessageSpec struct {
	// ID is the stable message id (see the identity helpers, e.g. [RuntimeID]).
	ID     string
	Role   llm.Role
	Origin Origin
	// RuntimeEventID is the optional idempotency key of a runtime message;
	// it is unique within a conversation.
	RuntimeEventID string
	// ToolRoundID ties a tool-call part or a tool result to its round, so
	// projection can merge the round back into one assistant message.
	ToolRoundID string
	Parts       []llm.Part
	Assistant   *llm.Assistant
	ToolResult  *llm.ToolResult
}

// Message is one immutable message of a conversation. The zero value is not a
// valid message; build one with [NewMessage] or [DecodeMessage]. Accessors
// return copies, so a Message can be shared freely.
type Message struct {
	id             string
	role           llm.Role
	origin         Origin
	runtimeEventID string
	toolRoundID    string
	parts          []llm.Part
	assistant      *llm.Assistant
	toolResult     *llm.ToolResult
	// encoded is the canonical encoding, computed once at construction.
	encoded []byte
	// hash is SHA-256 of encoded; it feeds the checkpoint digest chain.
	hash [sha256.Size]byte
}

// NewMessage validates spec and returns the message. The content is deep
// copied, so later changes to spec do not reach the message. Empty tool-call
// arguments become "{}". Violations wrap ErrInvalidMessage.
func NewMessage(spec MessageSpec) (Message, error) {
	m := Message{
		id:             spec.ID,
		role:           spec.Role,
		origin:         spec.Origin,
		runtimeEventID: spec.RuntimeEventID,
		toolRoundID:    spec.ToolRoundID,
		parts:          cloneParts(spec.Parts),
		assistant:      cloneAssistant(spec.Assistant),
		toolResult:     cloneToolResult(spec.ToolResult),
	}
	if m.assistant != nil {
		for i := range m.assistant.Calls {
			if len(m.assistant.Calls[i].Arguments) == 0 {
				m.assistant.Calls[i].Arguments = []byte("{}")
			}
		}
	}
	if err := m.validate(); err != nil {
		return Message{}, err
	}
	m.encoded = encodeMessage(m)
	m.hash = sha256.Sum256(m.encoded)
	return m, nil
}

// NewText is a shorthand for a single-text-part message of the given role
// (system or user) and origin.
func NewText(id string, role llm.Role, origin Origin, text string) (Message, error) {
	return NewMessage(MessageSpec{
		ID: id, Role: role, Origin: origin,
		Parts: []llm.Part{{Kind: llm.PartText, Text: text}},
	})
}

// ID returns the stable message id.
func (m Message) ID() string { return m.id }

// Role returns the provider-visible role.
func (m Message) Role() llm.Role { return m.role }

// Origin returns who produced the message.
func (m Message) Origin() Origin { return m.origin }

// RuntimeEventID returns the idempotency key of a runtime message, or "".
func (m Message) RuntimeEventID() string { return m.runtimeEventID }

// ToolRoundID returns the tool round of a call part or result, or "".
func (m Message) ToolRoundID() string { return m.toolRoundID }

// Parts returns a copy of the parts of a system or user message.
func (m Message) Parts() []llm.Part { return cloneParts(m.parts) }

// Text returns the concatenated text parts of a system or user message, the
// visible text of an assistant message, or the content of a tool result.
func (m Message) Text() string {
	switch {
	case m.assistant != nil:
		return m.assistant.Text
	case m.toolResult != nil:
		return m.toolResult.Content
	}
	var b bytes.Buffer
	for _, p := range m.parts {
		if p.Kind == llm.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Assistant returns a copy of the assistant content and whether there is one.
func (m Message) Assistant() (llm.Assistant, bool) {
	if m.assistant == nil {
		return llm.Assistant{}, false
	}
	return *cloneAssistant(m.assistant), true
}

// ToolResult returns a copy of the tool result and whether there is one.
func (m Message) ToolResult() (llm.ToolResult, bool) {
	if m.toolResult == nil {
		return llm.ToolResult{}, false
	}
	return *cloneToolResult(m.toolResult), true
}

// Encode returns the canonical encoding: deterministic bytes that
// [DecodeMessage] turns back into an equal message. Stores persist it;
// digests and conflict detection are computed from it.
func (m Message) Encode() []byte { return bytes.Clone(m.encoded) }

// EncodedShared is Encode without the copy, for a caller that only reads
// the bytes (a checkpoint's blobs hold a turn's whole context message once
// per checkpoint): it must never modify them.
func (m Message) EncodedShared() []byte { return m.encoded }

// Equal reports whether two messages have the same id and the same content.
func (m Message) Equal(other Message) bool { return bytes.Equal(m.encoded, other.encoded) }

// Hash returns SHA-256 of the canonical encoding.
func (m Message) Hash() [sha256.Size]byte { return m.hash }

// LLM returns the provider-independent view of the message (a deep copy).
func (m Message) LLM() llm.Message {
	return llm.Message{
		ID:         m.id,
		Role:       m.role,
		Parts:      cloneParts(m.parts),
		Assistant:  cloneAssistant(m.assistant),
		ToolResult: cloneToolResult(m.toolResult),
	}
}
