package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// DefaultMaxTokens is the context size shown when the model's window is
// unknown: a common window, so the client's context ring shows something
// sensible.
const DefaultMaxTokens = 200000

// Projection is what a checkpoint is built from.
//
// A compaction (Summary set) also records a ConversationSummaryArchive
// blob (summary_archive, appended to summary_archives) naming the roots it
// replaced.
type Projection struct {
	// Base is the client's state the turn started from; its turns and the
	// fields Keygate does not manage are carried over. nil starts empty.
	Base *agentv1.ConversationStateStructure
	// Messages are the committed messages of the checkpoint, oldest first.
	Messages []conversation.Message
	// Turn is the current turn; nil adds none.
	Turn *Turn
	Mode agentv1.AgentMode
	// UsedTokens and MaxTokens drive the context ring; MaxTokens 0 means
	// DefaultMaxTokens.
	UsedTokens, MaxTokens int64
	// Summary, when set, records a compaction.
	Summary string
	// Todos, when not nil, replaces the todo list; each item is stored
	// inline as its encoding.
	Todos []*agentv1.TodoItem
	// Subagents, when set, records the turn's subagents over the client's.
	Subagents *Subagents
}

// Pending is the open tool round of a staged checkpoint: the calls still
// waiting for their results, and the round's text, thinking and replay
// state while none of its calls is committed. A resume hands it back, so
// a store that lost the round can run the calls without the model
// sampling them again (PendingTurn).
type Pending struct {
	RoundID string
	// Text is the assistant text before the calls (the whole answer of a
	// staged final state).
	Text  string
	Calls []llm.ToolCall
	// Thinking and Replay are the round's reasoning and the provider's
	// replay state (signed thinking), which a provider needs back with the
	// calls' results.
	Thinking string
	Replay   *llm.ReplayState
}

// Settled returns the settled state and the blobs it refers to.
func Settled(p Projection) (*agentv1.ConversationStateStructure, Blobs) {
	return build(p, nil)
}

// Staged returns the staged state of an open tool round and its blobs.
func Staged(p Projection, pending Pending) (*agentv1.ConversationStateStructure, Blobs) {
	return build(p, &pending)
}

// StagedFinal returns the staged state of a finished turn: the final
// assistant message moves from the roots to the pending entry.
func StagedFinal(p Projection) (*agentv1.ConversationStateStructure, Blobs) {
	n := len(p.Messages)
	if n == 0 || p.Messages[n-1].Role() != llm.RoleAssistant {
		return build(p, &Pending{})
	}
	last := p.Messages[n-1]
	a, _ := last.Assistant()
	p.Messages = p.Messages[:n-1]
	return build(p, &Pending{RoundID: last.ID(), Text: a.Text, Calls: a.Calls, Thinking: a.Thinking, Replay: a.Replay})
}

func build(p Projection, pending *Pending) (*agentv1.ConversationStateStructure, Blobs) {
	b := Blobs{}
	s := &agentv1.ConversationStateStructure{}
	if p.Base != nil {
		s = proto.Clone(p.Base).(*agentv1.ConversationStateStructure)
	}
	s.RootPromptMessagesJson = nil
	for _, m := range p.Messages {
		s.RootPromptMessagesJson = append(s.RootPromptMessagesJson, b.putMessage(m))
	}
	if p.Turn != nil {
		if p.Turn.Continues() && len(s.Turns) > 0 {
			s.Turns = s.Turns[:len(s.Turns)-1]
		}
		s.Turns = append(s.Turns, p.Turn.structure(b))
	}
	s.PendingToolCalls = nil
	if pending != nil {
		s.PendingToolCalls = []string{pendingEntry(*pending)}
	}
	if p.Todos != nil {
		s.Todos = make([][]byte, 0, len(p.Todos))
		for _, t := range p.Todos {
			data, _ := proto.MarshalOptions{Deterministic: true}.Marshal(t) // a TodoItem always marshals
			s.Todos = append(s.Todos, data)
		}
	}
	p.Subagents.apply(s)
	mode := p.Mode
	s.Mode = &mode
	max := p.MaxTokens
	if max <= 0 {
		max = DefaultMaxTokens
	}
	s.TokenDetails = &agentv1.ConversationTokenDetails{UsedTokens: uint32(p.UsedTokens), MaxTokens: uint32(max)}
	if p.Summary != "" {
		s.Summary = b.PutProto(&agentv1.ConversationSummary{Summary: p.Summary})
		// The archive names the roots the summary replaced (the client's
		// previous roots) and the root that now carries the summary.
		archive := &agentv1.ConversationSummaryArchive{Summary: p.Summary}
		if p.Base != nil {
			archive.SummarizedMessages = p.Base.GetRootPromptMessagesJson()
		}
		if n := len(s.RootPromptMessagesJson); n > 0 {
			archive.SummaryMessage = s.RootPromptMessagesJson[n-1]
		}
		id := b.PutProto(archive)
		s.SummaryArchive = id
		if !slices.ContainsFunc(s.SummaryArchives, func(a []byte) bool { return bytes.Equal(a, id) }) {
			s.SummaryArchives = append(s.SummaryArchives, id)
		}
		s.SelfSummaryCount++
	}
	return s, b
}

// entry is the JSON of a pending assistant message (role, reasoning, text
// and tool-call parts, in the client's message shape), plus Keygate's round
// id and the provider's replay state, which a resume hands back.
type entry struct {
	ID      string       `json:"id"`
	Role    string       `json:"role"`
	RoundID string       `json:"keygate_round_id,omitempty"`
	Replay  *replayEntry `json:"keygate_replay,omitempty"`
	Content []content    `json:"content"`
}

type content struct {
	Type       string          `json:"type"`
	Text       string          `json:"text,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
}

// replayEntry is llm.ReplayState in the entry (Value is base64 in JSON).
type replayEntry struct {
	Kind  llm.ProviderKind `json:"kind"`
	Value []byte           `json:"value"`
}

func pendingEntry(p Pending) string {
	e := entry{ID: p.RoundID, Role: "assistant", RoundID: p.RoundID, Content: []content{}}
	if p.Replay != nil {
		e.Replay = &replayEntry{Kind: p.Replay.Kind, Value: p.Replay.Value}
	}
	if p.Thinking != "" {
		e.Content = append(e.Content, content{Type: "reasoning", Text: p.Thinking})
	}
	if p.Text != "" {
		e.Content = append(e.Content, content{Type: "text", Text: p.Text})
	}
	for _, c := range p.Calls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			args = json.RawMessage(`{}`)
		}
		e.Content = append(e.Content, content{Type: "tool-call", ToolCallID: c.CallID, ToolName: c.Name, Args: args})
	}
	out, _ := json.Marshal(e) // plain structs always marshal
	return string(out)
}

// ErrManyPending marks a checkpoint with more than one pending assistant
// message, which no resume can continue.
var ErrManyPending = errors.New("checkpoint has more than one pending assistant message")

// PendingRoundID returns the Keygate round id of a staged state's pending
// entry; "" when the state is settled or the entry carries none.
func PendingRoundID(s *agentv1.ConversationStateStructure) (string, error) {
	e, ok, err := pending(s)
	if err != nil || !ok {
		return "", err
	}
	return e.RoundID, nil
}

// PendingTurn returns the assistant turn of a staged state's pending
// entry: its text, reasoning, replay state and the tool calls still
// waiting for results (Index in entry order), with the Keygate round id
// they belong to. ok is false for a settled state. Entries in the shape
// another backend wrote (tool-call parts without Keygate's fields) are
// read too.
func PendingTurn(s *agentv1.ConversationStateStructure) (roundID string, a llm.Assistant, ok bool, err error) {
	e, ok, err := pending(s)
	if err != nil || !ok {
		return "", llm.Assistant{}, false, err
	}
	if e.Replay != nil && len(e.Replay.Value) > 0 {
		a.Replay = &llm.ReplayState{Kind: e.Replay.Kind, Value: e.Replay.Value}
	}
	for _, c := range e.Content {
		switch c.Type {
		case "text":
			a.Text += c.Text
		case "reasoning":
			a.Thinking += c.Text
		case "tool-call":
			if c.ToolCallID == "" || c.ToolName == "" {
				return "", llm.Assistant{}, false, fmt.Errorf("resume: pending tool call without an id or a name")
			}
			args := []byte(c.Args)
			if len(args) == 0 {
				args = []byte(`{}`)
			}
			a.Calls = append(a.Calls, llm.ToolCall{Index: len(a.Calls), CallID: c.ToolCallID, Name: c.ToolName, Arguments: args})
		}
	}
	return e.RoundID, a, true, nil
}

// pending decodes a state's one pending entry; ok is false when it has
// none.
func pending(s *agentv1.ConversationStateStructure) (entry, bool, error) {
	switch n := len(s.GetPendingToolCalls()); {
	case n == 0:
		return entry{}, false, nil
	case n > 1:
		return entry{}, false, fmt.Errorf("resume: %w (%d)", ErrManyPending, n)
	}
	var e entry
	if err := json.Unmarshal([]byte(s.GetPendingToolCalls()[0]), &e); err != nil {
		return entry{}, false, fmt.Errorf("resume: decode pending entry: %w", err)
	}
	return e, true, nil
}

// Todos decodes a state's todo list when its items are inline; items held
// as blob ids (another backend's format) yield nil.
func Todos(s *agentv1.ConversationStateStructure) []*agentv1.TodoItem {
	var out []*agentv1.TodoItem
	for _, b := range s.GetTodos() {
		var t agentv1.TodoItem
		if err := proto.Unmarshal(b, &t); err != nil || t.GetId() == "" {
			return nil
		}
		out = append(out, &t)
	}
	return out
}
