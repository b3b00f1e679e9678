package cmdk

import (
	"fmt"
	"slices"
	"strings"

	"keygate/domain/cmdk"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// EditInput translates a StreamCmdKRequest to the use case's request. The
// client sends the instruction (cmd_k_query), the selection with its
// 1-indexed start line (cmd_k_selection; no lines for an insertion), the
// numbered lines around it with the file's path (cmd_k_immediate_context),
// the session's earlier instructions (cmd_k_query_history, newest
// outermost), attached context items, and rules.
func EditInput(req *aiserverv1.StreamCmdKRequest, requestID string) cmdk.Input {
	in := cmdk.Input{RequestID: requestID, Chat: req.GetCmdKOptions().GetChatMode()}
	var around []*aiserverv1.ContextItem_CmdKImmediateContext_Line
	for _, pc := range req.GetContextItems() {
		it := pc.GetContextItem()
		switch {
		case it.GetCmdKQuery() != nil:
			in.Instruction = it.GetCmdKQuery().GetQuery()
		case it.GetCmdKSelection() != nil:
			in.Selection = it.GetCmdKSelection().GetLines()
			in.Start = int(it.GetCmdKSelection().GetStartLineNumber())
		case it.GetCmdKImmediateContext() != nil:
			ic := it.GetCmdKImmediateContext()
			in.Path, in.TotalLines, around = ic.GetRelativeWorkspacePath(), int(ic.GetTotalNumberOfLinesInFile()), ic.GetLines()
		case it.GetCmdKQueryHistory() != nil:
			for h := it.GetCmdKQueryHistory(); h != nil; h = h.GetQueryHistory() {
				if q := h.GetQuery().GetQuery(); q != "" {
					in.Earlier = append(in.Earlier, q)
				}
			}
			slices.Reverse(in.Earlier)
		default:
			rules, snippet := contextItem(it)
			in.Rules = append(in.Rules, rules...)
			if snippet.Text != "" {
				in.Context = append(in.Context, snippet)
			}
		}
	}
	if in.Start < 1 {
		in.Start = 1
	}
	for _, l := range around {
		switch n := int(l.GetLineNumber()); {
		case n < in.Start:
			in.Before = append(in.Before, l.GetLine())
		case n >= in.End():
			in.After = append(in.After, l.GetLine())
		}
	}
	lc := req.GetLegacyContext()
	in.Rules = append(in.Rules, explicit(lc.GetExplicitContext())...)
	in.Rules = append(in.Rules, ruleTexts(req.GetRules())...)
	for _, b := range lc.GetPromptCodeBlocks() {
		if b.GetContents() != "" {
			in.Context = append(in.Context, cmdk.Snippet{Title: fmt.Sprintf("%s:%d", b.GetRelativeWorkspacePath(), b.GetRange().GetStartPosition().GetLine()), Text: b.GetContents()})
		}
	}
	return in
}

// TerminalInput translates a StreamTerminalCmdKRequest: the instruction
// (terminal_cmd_k_query), the terminal's output and directory
// (terminal_history), earlier instructions with the commands suggested
// (terminal_cmd_k_query_history) and attached context.
func TerminalInput(req *aiserverv1.StreamTerminalCmdKRequest, requestID string) cmdk.TerminalInput {
	in := cmdk.TerminalInput{RequestID: requestID}
	for _, pc := range req.GetContextItems() {
		it := pc.GetContextItem()
		switch {
		case it.GetTerminalCmdKQuery() != nil:
			in.Instruction = it.GetTerminalCmdKQuery().GetQuery()
		case it.GetTerminalHistory() != nil:
			th := it.GetTerminalHistory()
			in.History, in.Cwd = th.GetHistory(), th.GetCwdFull()
			if in.Cwd == "" {
				in.Cwd = th.GetCwdRelativeWorkspacePath()
			}
		case it.GetTerminalCmdKQueryHistory() != nil:
			var ex []cmdk.Exchange
			for h := it.GetTerminalCmdKQueryHistory(); h != nil; h = h.GetQueryHistory() {
				if q := h.GetQuery().GetQuery(); q != "" {
					ex = append(ex, cmdk.Exchange{Instruction: q, Command: h.GetSuggestedCommand()})
				}
			}
			slices.Reverse(ex)
			in.Earlier = append(in.Earlier, ex...)
		default:
			rules, snippet := contextItem(it)
			in.Rules = append(in.Rules, rules...)
			if snippet.Text != "" {
				in.Context = append(in.Context, snippet)
			}
		}
	}
	lc := req.GetLegacyContext()
	in.Rules = append(in.Rules, explicit(lc.GetExplicitContext())...)
	return in
}

// contextItem reads an attached context item: standing instructions as
// rules, code and documentation as a snippet. Items with nothing for the
// prompt (chat history, scores) give neither.
func contextItem(it *aiserverv1.ContextItem) ([]string, cmdk.Snippet) {
	switch {
	case it.GetCustomInstructions() != nil:
		return []string{it.GetCustomInstructions().GetInstructions()}, cmdk.Snippet{}
	case it.GetProjectRule() != nil:
		return ruleTexts([]*aiserverv1.CursorRule{it.GetProjectRule()}), cmdk.Snippet{}
	case it.GetFileChunk() != nil:
		c := it.GetFileChunk()
		return nil, cmdk.Snippet{Title: fmt.Sprintf("%s:%d", c.GetRelativeWorkspacePath(), c.GetStartLineNumber()), Text: c.GetChunkContents()}
	case it.GetOutlineChunk() != nil:
		c := it.GetOutlineChunk()
		return nil, cmdk.Snippet{Title: c.GetRelativeWorkspacePath() + " (outline)", Text: c.GetContents()}
	case it.GetSparseFileChunk() != nil:
		c := it.GetSparseFileChunk()
		var b strings.Builder
		for _, l := range c.GetLines() {
			fmt.Fprintf(&b, "%d: %s\n", l.GetLineNumber(), l.GetLine())
		}
		return nil, cmdk.Snippet{Title: c.GetRelativeWorkspacePath(), Text: b.String()}
	case it.GetGoToDefinitionResult() != nil:
		d := it.GetGoToDefinitionResult().GetDefinitionChunk()
		return nil, cmdk.Snippet{Title: fmt.Sprintf("definition in %s:%d", d.GetRelativeWorkspacePath(), d.GetStartLineNumber()), Text: d.GetChunkContents()}
	case it.GetDocumentationChunk() != nil:
		d := it.GetDocumentationChunk()
		return nil, cmdk.Snippet{Title: d.GetDocName() + " " + d.GetPageUrl(), Text: d.GetDocumentationChunk()}
	case it.GetLints() != nil:
		l := it.GetLints()
		var b strings.Builder
		for _, e := range l.GetLints() {
			fmt.Fprintf(&b, "line %d: %s\n", e.GetRange().GetStartLineNumber(), e.GetMessage())
		}
		return nil, cmdk.Snippet{Title: l.GetRelativeWorkspacePath() + " diagnostics", Text: b.String()}
	}
	return nil, cmdk.Snippet{}
}

// explicit is the user's standing instructions and the rules the client
// chose for the request.
func explicit(ec *aiserverv1.ExplicitContext) []string {
	out := ruleTexts(ec.GetRules())
	if c := strings.TrimSpace(ec.GetContext()); c != "" {
		out = append([]string{c}, out...)
	}
	return out
}

// ruleTexts are the bodies of rules, each titled by its name.
func ruleTexts(rs []*aiserverv1.CursorRule) []string {
	var out []string
	for _, r := range rs {
		body := strings.TrimSpace(r.GetBody())
		if body == "" {
			continue
		}
		if r.GetName() != "" {
			body = r.GetName() + ": " + body
		}
		out = append(out, body)
	}
	return out
}
