package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// fetchRulesTool gives the model the content of rules the request context
// lists by name and description only (agent-requestable rules), on the
// server: the client sent their content with the request. The card shows
// them as a read of the rule files.
var fetchRulesTool = &tool{
	name:  "FetchRules",
	modes: everyMode,
	runs:  onServer,
	open:  func() handler { return new(fetchRules) },
}

// fetchRules handles one FetchRules call, at once.
type fetchRules struct{}

func (*fetchRules) start(c *call) (Action, error) {
	var names []string
	raw, _ := c.args["rule_names"].([]any)
	for _, n := range raw {
		if s, ok := n.(string); ok && s != "" {
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return Action{}, c.missing("rule_names")
	}
	var found []*agentv1.CursorRule
	var missing []string
	var b strings.Builder
	for _, n := range names {
		r := ruleNamed(c, n)
		if r == nil {
			missing = append(missing, n)
			continue
		}
		found = append(found, r)
		fmt.Fprintf(&b, "<rule name=%q path=%q>\n%s\n</rule>\n", RuleName(r), r.GetFullPath(), r.GetContent())
	}
	if len(missing) > 0 {
		var known []string
		for _, r := range c.env.Rules {
			known = append(known, RuleName(r))
		}
		fmt.Fprintf(&b, "No rule named %s; the rules are: %s.\n", strings.Join(missing, ", "), strings.Join(known, ", "))
	}
	card := &agentv1.ReadToolCall{Args: &agentv1.ReadToolArgs{Path: strings.Join(names, ", ")}}
	c.card.Tool = &agentv1.ToolCall_ReadToolCall{ReadToolCall: card}
	if len(found) == 0 {
		card.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Error{Error: &agentv1.ReadToolError{ErrorMessage: b.String()}}}
		return fail(strings.TrimSpace(b.String())), nil
	}
	s := &agentv1.ReadToolSuccess{Path: found[0].GetFullPath(), RelatedCursorRules: found,
		Output: &agentv1.ReadToolSuccess_Content{Content: b.String()}}
	for _, r := range found {
		s.RelatedCursorRulePaths = append(s.RelatedCursorRulePaths, r.GetFullPath())
	}
	card.Result = &agentv1.ReadToolResult{Result: &agentv1.ReadToolResult_Success{Success: s}}
	return finish(b.String(), false), nil
}

// ruleNamed is the on-demand rule named n (by name or path).
func ruleNamed(c *call, n string) *agentv1.CursorRule {
	for _, r := range c.env.Rules {
		if RuleName(r) == n || r.GetFullPath() == n {
			return r
		}
	}
	return nil
}
