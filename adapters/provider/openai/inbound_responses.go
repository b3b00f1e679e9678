package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
)

type respIn struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions"`
	Input           json.RawMessage   `json:"input"`
	Tools           []json.RawMessage `json:"tools"`
	Stream          bool              `json:"stream"`
	MaxOutputTokens int               `json:"max_output_tokens"`
	PromptCacheKey  string            `json:"prompt_cache_key"`
	ServiceTier     string            `json:"service_tier"`
	Reasoning       *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
}

type respInItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent *string `json:"encrypted_content"`
}

type respInTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// clientToolTypes are the tool types the caller runs itself; every other
// type is a hosted tool (web_search, file_search, ...) that only the
// provider can run.
var clientToolTypes = map[string]bool{"function": true, "custom": true, "namespace": true}

// ClientTools returns the tools array of a Responses body without its
// hosted tools, and whether any were left out (false: keep the body's).
func ClientTools(body []byte) ([]byte, bool) {
	var tools []byte
	_ = wire.Members(body, func(key, value []byte) bool {
		if string(key) == "tools" {
			tools = value
			return false
		}
		return true
	})
	if tools == nil {
		return nil, false
	}
	w := wire.Writer{}
	w.BeginArray()
	dropped := false
	_ = wire.Elements(tools, func(v []byte) bool {
		var t struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(v, &t) == nil && !clientToolTypes[t.Type] {
			dropped = true
			return true
		}
		_ = w.Raw(v)
		return true
	})
	w.EndArray()
	return w.B, dropped
}

// ParseResponses reads a Responses request body: instructions, input items
// (developer and system messages become system messages; reasoning items
// ride as Responses replay state on the assistant turn they precede, so
// their encrypted content reaches a Responses target and no other;
// function calls and their outputs), function tools (hosted tools and
// namespaces are left out of a translated call and named in Dropped),
// reasoning effort, max_output_tokens, prompt_cache_key.
func ParseResponses(body []byte) (Inbound, error) {
	var in respIn
	if err := json.Unmarshal(body, &in); err != nil {
		return Inbound{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if in.Model == "" {
		return Inbound{}, fmt.Errorf("%w: model is required", ErrInvalidRequest)
	}
	req := llm.Request{Model: in.Model, Instructions: in.Instructions, MaxOutputTokens: in.MaxOutputTokens,
		CacheKey: in.PromptCacheKey, ServiceTier: in.ServiceTier,
		Native: &llm.Native{Kind: llm.ProviderOpenAIResponses, Body: body}}
	if in.Reasoning != nil {
		req.Reasoning = llm.Reasoning{Enabled: in.Reasoning.Effort != "none", Effort: in.Reasoning.Effort}
	}
	msgs, err := responsesItems(in.Input)
	if err != nil {
		return Inbound{}, err
	}
	req.Messages = msgs
	var dropped []string
	for _, raw := range in.Tools {
		var t respInTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return Inbound{}, fmt.Errorf("%w: tools: %w", ErrInvalidRequest, err)
		}
		if t.Type != "function" {
			dropped = append(dropped, t.Type+" "+t.Name)
			continue
		}
		req.Tools = append(req.Tools, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return Inbound{Model: in.Model, Stream: in.Stream, CacheKey: in.PromptCacheKey, Request: req, Dropped: dropped}, nil
}

func responsesItems(raw json.RawMessage) ([]llm.Message, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: s}}}}, nil
	}
	var items []respInItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%w: input: %w", ErrInvalidRequest, err)
	}
	var out []llm.Message
	var a *llm.Assistant // the assistant turn being gathered
	var reasoning [][]byte
	flush := func() {
		if a == nil && len(reasoning) == 0 {
			return
		}
		if a == nil {
			a = &llm.Assistant{}
		}
		if len(reasoning) > 0 {
			var w wire.Writer
			w.BeginObject()
			w.Key("items")
			w.BeginArray()
			for _, r := range reasoning {
				_ = w.Raw(r)
			}
			w.EndArray()
			w.EndObject()
			a.Replay = &llm.ReplayState{Kind: llm.ProviderOpenAIResponses, Value: w.B}
		}
		out = append(out, llm.Message{Role: llm.RoleAssistant, Assistant: a})
		a, reasoning = nil, nil
	}
	assistant := func() *llm.Assistant {
		if a == nil {
			a = &llm.Assistant{}
		}
		return a
	}
	for i, it := range items {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "reasoning":
			if a != nil && (a.Text != "" || len(a.Calls) > 0) {
				flush()
			}
			for _, s := range it.Summary {
				assistant().Thinking += s.Text
			}
			if it.EncryptedContent != nil {
				var ri respItem
				if err := json.Unmarshal(rawElement(raw, i), &ri); err == nil {
					reasoning = append(reasoning, projectReasoning(&ri))
				}
			}
		case "function_call":
			c := assistant()
			c.Calls = append(c.Calls, llm.ToolCall{Index: len(c.Calls), CallID: it.CallID, Name: it.Name, Arguments: argsOf(it.Arguments)})
		case "function_call_output":
			flush()
			out = append(out, llm.Message{Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: it.CallID, Content: outputText(it.Output)}})
		case "message":
			parts, err := chatParts(it.Content)
			if err != nil {
				return nil, fmt.Errorf("%w: input[%d].content: %w", ErrInvalidRequest, i, err)
			}
			switch it.Role {
			case "assistant":
				c := assistant()
				c.Text += partsText(parts)
			case "user":
				flush()
				out = append(out, llm.Message{Role: llm.RoleUser, Parts: parts})
			default: // developer, system
				flush()
				out = append(out, llm.Message{Role: llm.RoleSystem, Parts: parts})
			}
		}
	}
	flush()
	return out, nil
}

// rawElement returns the raw JSON of element i of the array raw.
func rawElement(raw json.RawMessage, i int) []byte {
	n := 0
	var found []byte
	_ = wire.Elements(raw, func(v []byte) bool {
		if n == i {
			found = v
			return false
		}
		n++
		return true
	})
	return found
}

// outputText is a function_call_output's output: a string, or the text of
// its content parts.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	parts, err := chatParts(raw)
	if err != nil {
		return strings.TrimSpace(string(raw))
	}
	return partsText(parts)
}
