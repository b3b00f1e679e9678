package compile

import (
	"regexp"
	"slices"

	"keygate/adapters/cursor/tools"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// allRules are the client's rules: file rules, then rules without a file.
func allRules(rc *agentv1.RequestContext) []*agentv1.CursorRule {
	return append(append([]*agentv1.CursorRule{}, rc.GetRules()...), rc.GetNonFileRules()...)
}

// contextRules are the rules the request context shows: rules that always
// apply, whole, and agent-requestable rules by name and description. Glob
// and manual rules come with the turns that bring them in.
func contextRules(rc *agentv1.RequestContext) []turn.Rule {
	var out []turn.Rule
	for _, r := range allRules(rc) {
		switch tools.KindOf(r) {
		case tools.RuleAlways:
			out = append(out, turn.Rule{Path: r.GetFullPath(), Content: r.GetContent()})
		case tools.RuleRequestable:
			out = append(out, turn.Rule{Path: r.GetFullPath(), Requestable: true, Name: tools.RuleName(r),
				Description: r.GetType().GetAgentFetched().GetDescription()})
		}
	}
	return out
}

// onDemandRules are the rules a run applies as it goes: glob rules (their
// files may come up in tool calls) and agent-requestable ones.
func onDemandRules(rc *agentv1.RequestContext) []*agentv1.CursorRule {
	var out []*agentv1.CursorRule
	for _, r := range allRules(rc) {
		if k := tools.KindOf(r); k == tools.RuleGlob || k == tools.RuleRequestable {
			out = append(out, r)
		}
	}
	return out
}

// mention is an @name in the user's text.
var mention = regexp.MustCompile(`@([\w.-]+)`)

// turnRules are the rules a user message brings in beyond what the user
// attached: glob rules that match a file the user attached, and manual
// rules the user mentions by name (@name).
func turnRules(rc *agentv1.RequestContext, sel turn.Selection, text string) []turn.Rule {
	var files []string
	for _, f := range sel.Files {
		files = append(files, f.Path)
	}
	for _, c := range sel.Code {
		files = append(files, c.Path)
	}
	var named []string
	for _, m := range mention.FindAllStringSubmatch(text, -1) {
		named = append(named, m[1])
	}
	roots := rc.GetEnv().GetWorkspacePaths()
	var out []turn.Rule
	for _, r := range allRules(rc) {
		if slices.ContainsFunc(sel.Rules, func(s turn.Rule) bool { return s.Path == r.GetFullPath() }) {
			continue
		}
		switch tools.KindOf(r) {
		case tools.RuleGlob:
			if slices.ContainsFunc(files, func(f string) bool { return tools.RuleMatches(r, f, roots) }) {
				out = append(out, turn.Rule{Path: r.GetFullPath(), Content: r.GetContent()})
			}
		case tools.RuleManual:
			if slices.Contains(named, tools.RuleName(r)) {
				out = append(out, turn.Rule{Path: r.GetFullPath(), Content: r.GetContent()})
			}
		}
	}
	return out
}
