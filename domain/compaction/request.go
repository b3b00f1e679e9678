package compaction

import (
	"strings"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
)

// AutoInstruction is the transient user tail that asks for an automatic
// summary.
const AutoInstruction = "Write a compact, durable summary of this conversation so far for the next model turn. " +
	"Keep the goals, constraints, decisions, files, commands, errors, results and any unfinished work. " +
	"Do not call tools. Reply with the summary only."

// ManualInstruction is the transient user tail of a /summarize call.
const ManualInstruction = "Summarize the conversation so far as instructed."

// AutomaticRequest builds the summary call of an automatic compaction from
// the compactable messages: no tools, SummaryOutputTokens of output,
// reasoning off, the history trimmed to the budget minus the output
// allowance by dropping the oldest whole turns (the newest turn is always
// kept), and user-terminated with [AutoInstruction].
func AutomaticRequest(compactable []conversation.Message, p projection.Prompt, s projection.Settings, window int64) (llm.Request, error) {
	history, err := projection.History(compactable)
	if err != nil {
		return llm.Request{}, err
	}
	build := func(h []llm.Message) llm.Request {
		req := summaryRequest(h, p, s, AutoInstruction)
		req.MaxOutputTokens, req.Reasoning = SummaryOutputTokens, llm.Reasoning{}
		return req
	}
	req := build(history)
	if Budget(window) == 0 {
		return req, nil
	}
	limit := Budget(window) - SummaryOutputTokens
	for turns := Turns(history); len(turns) > 1 && llm.EstimateRequest(req) > limit; {
		turns = turns[1:]
		req = build(flatten(turns))
	}
	return req, nil
}

// ManualRequest builds the summary call of /summarize: the whole history,
// the compaction prompt, no tools, the run's model settings, and
// user-terminated with [ManualInstruction].
func ManualRequest(history []conversation.Message, p projection.Prompt, s projection.Settings) (llm.Request, error) {
	msgs, err := projection.History(history)
	if err != nil {
		return llm.Request{}, err
	}
	return summaryRequest(msgs, p, s, ManualInstruction), nil
}

func summaryRequest(history []llm.Message, p projection.Prompt, s projection.Settings, instruction string) llm.Request {
	msgs := append(append([]llm.Message(nil), history...), projection.UserTail(conversation.CompactionInstructionID, instruction))
	return llm.Request{
		Model: s.Model, Instructions: p.Instructions, Messages: msgs,
		MaxOutputTokens: s.MaxOutputTokens, Reasoning: s.Reasoning, CacheKey: s.CacheKey, ServiceTier: s.ServiceTier,
	}
}

// Turns splits projected messages into user-delimited turns: a turn starts
// at a user message that follows a non-user message (a run of user
// messages, such as a request context and its runtime message, opens one
// turn).
func Turns(msgs []llm.Message) [][]llm.Message {
	var turns [][]llm.Message
	for i, m := range msgs {
		if i == 0 || (m.Role == llm.RoleUser && msgs[i-1].Role != llm.RoleUser) {
			turns = append(turns, nil)
		}
		turns[len(turns)-1] = append(turns[len(turns)-1], m)
	}
	return turns
}

func flatten(turns [][]llm.Message) []llm.Message {
	var out []llm.Message
	for _, t := range turns {
		out = append(out, t...)
	}
	return out
}

// FallbackChars is how much recent conversation text a fallback summary
// keeps.
const FallbackChars = 12000

// FallbackSummary is the summary used when the summary call fails, times
// out, returns nothing or calls tools: the last FallbackChars characters of
// the history as plain text, after a line saying what it is. It needs no
// provider, so compaction always completes.
func FallbackSummary(history []llm.Message) string {
	var b strings.Builder
	for _, m := range history {
		b.WriteString(m.Role.String() + ": ")
		switch {
		case m.Assistant != nil:
			b.WriteString(m.Assistant.Text)
			for _, c := range m.Assistant.Calls {
				b.WriteString(" [" + c.Name + " " + string(c.Arguments) + "]")
			}
		case m.ToolResult != nil:
			b.WriteString(m.ToolResult.Content)
		default:
			for _, p := range m.Parts {
				b.WriteString(p.Text)
			}
		}
		b.WriteString("\n")
	}
	text := []rune(b.String())
	if len(text) > FallbackChars {
		text = text[len(text)-FallbackChars:]
	}
	return "Durable recent conversation state:\n" + string(text)
}
