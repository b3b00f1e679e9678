package providertest

import "keygate/domain/llm"

// Conversation returns the successive requests of a four-cycle agent
// conversation for one protocol: a user prompt with an image, a thinking turn
// with two parallel tool calls, a tool result that returns an image, a text
// turn with one call, a final answer and a new user prompt. Each request's
// history extends the previous one, so byte-prefix stability between cycles
// can be checked. Replay state is in kind's native shape.
func Conversation(kind llm.ProviderKind) []llm.Request {
	png := &llm.Image{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake"), BlobID: "blob-1"}
	base := llm.Request{
		Model:        "model-x",
		Instructions: "You are a coding agent. Use tools; answer briefly.",
		Tools: []llm.Tool{
			{Name: "read_file", Description: "Read a file.", Parameters: []byte(`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`)},
			{Name: "grep", Description: "Search files.", Parameters: []byte(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			{Name: "edit_file", Description: "Replace text <old> with <new> & save.", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}}}`)},
		},
		MaxOutputTokens: 8192,
		Reasoning:       llm.Reasoning{Enabled: true, Effort: "high"},
		CacheKey:        "conv-7f3a",
	}
	msgs := []llm.Message{{ID: "m1", Role: llm.RoleUser, Parts: []llm.Part{
		{Kind: llm.PartText, Text: "Fix the bug shown in this screenshot:\n\t\"panic\" in main.go"},
		{Kind: llm.PartImage, Image: png},
	}}}
	cycles := [][]llm.Message{
		{
			{ID: "m2", Role: llm.RoleAssistant, Assistant: &llm.Assistant{
				Thinking: "The panic is probably a nil map.", Text: "I'll read the file and search for TODOs.",
				Replay: replay(kind, "The panic is probably a nil map.", "sig-1"),
				Calls: []llm.ToolCall{
					{Index: 0, CallID: "call_a1", Name: "read_file", Arguments: []byte(`{"path": "main.go"}`)},
					{Index: 1, CallID: "call_a2", Name: "grep", Arguments: []byte(`{"pattern": "TODO"}`)},
				}}},
			{ID: "m3", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "call_a1", Name: "read_file",
				Content: "package main\n\nfunc main() {\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}\n", Image: png}},
			{ID: "m4", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "call_a2", Name: "grep",
				Content: "no matches", IsError: true}},
		},
		{
			{ID: "m5", Role: llm.RoleAssistant, Assistant: &llm.Assistant{
				Text: "Found it: the map is nil.", Replay: replay(kind, "", "sig-2"),
				Calls: []llm.ToolCall{{Index: 0, CallID: "call_b1", Name: "edit_file",
					Arguments: []byte(`{"path":"main.go","old":"var m map[string]int","new":"m := map[string]int{}"}`)}}}},
			{ID: "m6", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "call_b1", Name: "edit_file", Content: "ok"}},
		},
		{
			{ID: "m7", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "Fixed: the map is now initialised \u2028 before use."}},
			{ID: "m8", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "Now add a test."}}},
		},
	}
	var reqs []llm.Request
	add := func() {
		r := base
		r.Messages = append([]llm.Message(nil), msgs...)
		reqs = append(reqs, r)
	}
	add()
	for _, c := range cycles {
		msgs = append(msgs, c...)
		add()
	}
	return reqs
}

func replay(kind llm.ProviderKind, thinking, sig string) *llm.ReplayState {
	switch kind {
	case llm.ProviderOpenAIChat:
		if thinking == "" {
			return nil
		}
		return &llm.ReplayState{Kind: kind, Value: []byte(`{"reasoning_content":"` + thinking + `"}`)}
	case llm.ProviderOpenAIResponses:
		return &llm.ReplayState{Kind: kind, Value: []byte(`{"items":[{"type":"reasoning","id":"rs_` + sig +
			`","summary":[{"type":"summary_text","text":"` + thinking + `"}],"encrypted_content":"enc-` + sig + `","status":"completed"}]}`)}
	case llm.ProviderBedrockConverse:
		return &llm.ReplayState{Kind: kind, Value: []byte(`{"reasoning":[{"text":"` + thinking + `","signature":"` + sig + `"}]}`)}
	case llm.ProviderVertexAnthropic:
		return &llm.ReplayState{Kind: kind, Value: []byte(`{"blocks":[{"type":"thinking","thinking":"` + thinking +
			`","signature":"` + sig + `"}]}`)}
	case llm.ProviderAnthropic, llm.ProviderBedrockAnthropic:
		// Anthropic's blocks, whichever endpoint served them.
		return &llm.ReplayState{Kind: llm.ProviderAnthropic, Value: []byte(`{"blocks":[{"type":"thinking","thinking":"` + thinking +
			`","signature":"` + sig + `"}]}`)}
	case llm.ProviderGemini, llm.ProviderVertexGemini:
		return &llm.ReplayState{Kind: kind, Value: []byte(`{"calls":[{"index":0,"signature":"` + sig + `"}]}`)}
	}
	return nil
}
