package projection

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// ContinueText is the transient user tail sent when history ends with an
// assistant message.
const ContinueText = "Continue from where you left off."

// Prompt is the mode's fixed part of a request: the system prompt and the
// tools in the order they are offered.
type Prompt struct {
	Instructions string
	Tools        []llm.Tool
	// Name names the prompt (the mode it serves) for diagnostics; it never
	// reaches a provider.
	Name string
	// SharedTools is how many leading Tools the prompts of the modes the
	// conversation may switch to share (see llm.Request.SharedTools).
	SharedTools int
}

// Settings are the model settings of a request. They hold nothing that
// changes per run or per attempt.
type Settings struct {
	Model           string
	MaxOutputTokens int
	Reasoning       llm.Reasoning
	ServiceTier     string
	// CacheKey scopes provider prompt caching; see [CacheKey].
	CacheKey string
}

// Request projects the checkpoint messages msgs into a model request. When
// history ends with an assistant message it adds the transient user tail
// [ContinueText] (id conversation.ContinueID); the tail is part of the
// request only and never of any checkpoint.
func Request(msgs []conversation.Message, p Prompt, s Settings) (llm.Request, error) {
	history, err := History(msgs)
	if err != nil {
		return llm.Request{}, err
	}
	if n := len(history); n > 0 && history[n-1].Role == llm.RoleAssistant {
		history = append(history, UserTail(conversation.ContinueID, ContinueText))
	}
	return llm.Request{
		Model:           s.Model,
		Instructions:    p.Instructions,
		Tools:           slices.Clone(p.Tools),
		SharedTools:     min(max(p.SharedTools, 0), len(p.Tools)),
		PromptName:      p.Name,
		Messages:        history,
		MaxOutputTokens: s.MaxOutputTokens,
		Reasoning:       s.Reasoning,
		CacheKey:        s.CacheKey,
		ServiceTier:     s.ServiceTier,
	}, nil
}

// UserTail returns a transient single-text user message.
func UserTail(id, text string) llm.Message {
	return llm.Message{ID: id, Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}}
}

// CacheKey derives the provider prompt-cache key of a conversation. It
// depends on the conversation only, never on a run, so every turn of a
// conversation lands in the same cache.
func CacheKey(conversationID string) string {
	sum := sha256.Sum256([]byte("keygate/cache-key/v1\x00" + conversationID))
	return "kg-" + hex.EncodeToString(sum[:16])
}
