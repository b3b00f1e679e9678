package checkpoint

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// Turn records what the client shows of the current turn: the user message
// and the steps in the order they happened.
type Turn struct {
	RequestID string
	// User is the turn's user message; nil for a resume or a compaction.
	User *agentv1.UserMessage
	// Shell, when set, makes the turn a shell turn: a command the user ran
	// and its output, with no steps.
	Shell *agentv1.ShellConversationTurn
	steps []*agentv1.ConversationStep
	// prior is the client's turn this one continues (a resume): its user
	// message and steps are kept by blob id and it replaces the client's
	// last turn instead of following it.
	prior *agentv1.AgentConversationTurnStructure
	// priorCards maps a call id to the index of the prior step that shows
	// its card (PriorStep): the resumed run's card for that call takes the
	// step's place instead of following the prior steps.
	priorCards map[string]int
	// tail accumulates the text of the last step while deltas extend it,
	// so a long reply costs linear time, not a copy of the text per delta;
	// open is the step field tail mirrors.
	tail strings.Builder
	open *string
}

// Continue makes t continue the client's last turn, given as the bytes of
// its ConversationTurnStructure blob.
func (t *Turn) Continue(data []byte) error {
	var ts agentv1.ConversationTurnStructure
	if err := proto.Unmarshal(data, &ts); err != nil {
		return fmt.Errorf("decode the turn to continue: %w", err)
	}
	if ts.GetAgentConversationTurn() == nil {
		return errors.New("decode the turn to continue: not an agent turn")
	}
	t.prior = ts.GetAgentConversationTurn()
	return nil
}

// PriorSteps returns the blob ids of the continued turn's steps, in order.
func (t *Turn) PriorSteps() [][]byte { return t.prior.GetSteps() }

// PriorStep reads step i of the continued turn (data is its blob) and, when
// it is a tool card, returns its call id: a card the resumed run shows for
// that call (a pending call it runs again) replaces this step where it is,
// so the chat keeps one card per call and the one it keeps completes.
func (t *Turn) PriorStep(i int, data []byte) (string, error) {
	if i < 0 || i >= len(t.prior.GetSteps()) {
		return "", fmt.Errorf("prior step %d of %d", i, len(t.prior.GetSteps()))
	}
	var step agentv1.ConversationStep
	if err := proto.Unmarshal(data, &step); err != nil {
		return "", fmt.Errorf("decode prior step: %w", err)
	}
	id := step.GetToolCall().GetToolCallId()
	if id == "" {
		return "", nil
	}
	if t.priorCards == nil {
		t.priorCards = map[string]int{}
	}
	t.priorCards[id] = i
	return id, nil
}

// Continues reports whether t replaces the client's last turn.
func (t *Turn) Continues() bool { return t.prior != nil }

// Text appends assistant text, extending the last step when it is text.
func (t *Turn) Text(s string) {
	if n := len(t.steps); n > 0 {
		if a := t.steps[n-1].GetAssistantMessage(); a != nil {
			t.extend(&a.Text, s)
			return
		}
	}
	t.steps = append(t.steps, &agentv1.ConversationStep{Message: &agentv1.ConversationStep_AssistantMessage{
		AssistantMessage: &agentv1.AssistantMessage{Text: s}}})
}

// Thinking appends thinking text, extending the last step when it is
// thinking.
func (t *Turn) Thinking(s string) {
	if n := len(t.steps); n > 0 {
		if m := t.steps[n-1].GetThinkingMessage(); m != nil {
			t.extend(&m.Text, s)
			return
		}
	}
	t.steps = append(t.steps, &agentv1.ConversationStep{Message: &agentv1.ConversationStep_ThinkingMessage{
		ThinkingMessage: &agentv1.ThinkingMessage{Text: s}}})
}

// extend appends s to *field, the text of the last step. A
// strings.Builder never rewrites bytes it has handed out, so the strings
// set earlier stay valid.
func (t *Turn) extend(field *string, s string) {
	if t.open != field {
		t.tail.Reset()
		t.tail.WriteString(*field)
		t.open = field
	}
	t.tail.WriteString(s)
	*field = t.tail.String()
}

// ThinkingDone records the duration of the last thinking step.
func (t *Turn) ThinkingDone(d time.Duration) {
	if n := len(t.steps); n > 0 {
		if m := t.steps[n-1].GetThinkingMessage(); m != nil {
			m.DurationMs = uint32(d.Milliseconds())
		}
	}
}

// Tool records a tool card; a later card with the same call id replaces
// the earlier one (started, then completed).
func (t *Turn) Tool(card *agentv1.ToolCall) {
	card = proto.Clone(card).(*agentv1.ToolCall)
	for i, s := range t.steps {
		if tc := s.GetToolCall(); tc != nil && tc.GetToolCallId() == card.GetToolCallId() {
			t.steps[i] = &agentv1.ConversationStep{Message: &agentv1.ConversationStep_ToolCall{ToolCall: card}}
			return
		}
	}
	t.steps = append(t.steps, &agentv1.ConversationStep{Message: &agentv1.ConversationStep_ToolCall{ToolCall: card}})
}

// Cancelled settles the turn of a cancelled run: the cards of calls that
// never completed go (a cancelled run stores no call without its result,
// so the model never sees them, and a card left open would never complete
// in a reloaded chat), the text, thinking and completed cards stay. It
// reports whether the turn had steps, that is whether its checkpoint says
// more than the user turn's the client already holds.
func (t *Turn) Cancelled() bool {
	had := len(t.steps) > 0
	t.steps = slices.DeleteFunc(t.steps, func(s *agentv1.ConversationStep) bool {
		return s.GetToolCall() != nil && s.GetToolCall().CompletedAtMs == nil
	})
	t.open = nil
	return had
}

// structure stores the turn's blobs and returns the id of its
// ConversationTurnStructure.
func (t *Turn) structure(b Blobs) []byte {
	if t.Shell != nil {
		return b.PutProto(&agentv1.ConversationTurnStructure{Turn: &agentv1.ConversationTurnStructure_ShellConversationTurn{
			ShellConversationTurn: &agentv1.ShellConversationTurnStructure{
				ShellCommand: b.PutProto(t.Shell.GetShellCommand()), ShellOutput: b.PutProto(t.Shell.GetShellOutput())}}})
	}
	at := &agentv1.AgentConversationTurnStructure{}
	if t.prior != nil {
		at = proto.Clone(t.prior).(*agentv1.AgentConversationTurnStructure)
	}
	if t.RequestID != "" && at.RequestId == nil {
		id := t.RequestID
		at.RequestId = &id
	}
	if t.User != nil {
		at.UserMessage = b.PutProto(t.User)
	}
	for _, s := range t.steps {
		if i, ok := t.priorCards[s.GetToolCall().GetToolCallId()]; ok && s.GetToolCall() != nil {
			at.Steps[i] = b.PutProto(s)
			continue
		}
		at.Steps = append(at.Steps, b.PutProto(s))
	}
	return b.PutProto(&agentv1.ConversationTurnStructure{Turn: &agentv1.ConversationTurnStructure_AgentConversationTurn{AgentConversationTurn: at}})
}
