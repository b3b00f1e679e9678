package providertest

import (
	"strings"
)

// Turn is a scripted model answer, rendered into each protocol's SSE by
// ChatSSE, ResponsesSSE and AnthropicSSE. Deltas are sent as given, one
// event each, so a spec or benchmark controls the token count.
type Turn struct {
	// ID and Model are the response id and model snapshot reported.
	ID, Model string
	// Thinking deltas come first, then Text deltas, then Calls.
	Thinking []string
	// Signature signs the thinking block (Anthropic) or becomes the
	// encrypted_content of the reasoning item (Responses).
	Signature string
	Text      []string
	Calls     []Call
	Usage     Usage
	// Finish is the provider's own stop label; empty derives it (tool calls,
	// else a normal stop).
	Finish string
}

// Call is one scripted tool call; Arguments are the streamed fragments.
type Call struct {
	ID, Name  string
	Arguments []string
}

// Usage is scripted token usage in the exclusive shape: Input excludes
// cached tokens. Builders convert to each provider's own counting.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, Reasoning int64
}

// Words splits s into word-sized deltas, spaces kept, so that joining them
// gives s back.
func Words(s string) []string {
	return strings.SplitAfter(s, " ")
}

// Tokens returns n text deltas of a few characters each, for benchmarks.
func Tokens(n int) []string {
	words := []string{"The ", "quick ", "brown ", "fox ", "jumps ", "over ", "the ", "lazy ", "dog, ", "\"again\"\n"}
	out := make([]string, n)
	for i := range out {
		out[i] = words[i%len(words)]
	}
	return out
}

func joined(parts []string) string { return strings.Join(parts, "") }
