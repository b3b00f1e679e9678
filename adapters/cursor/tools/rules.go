package tools

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// RuleKind is how a Cursor rule applies.
type RuleKind uint8

// Rule kinds, from the rule's type.
const (
	// RuleAlways applies to every turn: its content is inlined in the
	// request context (a rule without a type is one too).
	RuleAlways RuleKind = iota + 1
	// RuleGlob applies when the turn touches a file its globs match.
	RuleGlob
	// RuleRequestable is listed with its description; the model fetches it
	// when it applies (FetchRules).
	RuleRequestable
	// RuleManual applies only when the user attaches or mentions it.
	RuleManual
)

// KindOf returns how r applies.
func KindOf(r *agentv1.CursorRule) RuleKind {
	switch r.GetType().GetType().(type) {
	case *agentv1.CursorRuleType_FileGlobbed:
		return RuleGlob
	case *agentv1.CursorRuleType_AgentFetched:
		return RuleRequestable
	case *agentv1.CursorRuleType_ManuallyAttached:
		return RuleManual
	}
	return RuleAlways
}

// RuleName is the name a rule goes by (what the user mentions with @ and
// the model asks FetchRules for): its file name without the extension.
func RuleName(r *agentv1.CursorRule) string {
	base := path.Base(strings.ReplaceAll(r.GetFullPath(), `\`, "/"))
	if base == "." || base == "/" {
		return r.GetFullPath()
	}
	return strings.TrimSuffix(base, path.Ext(base))
}

// RuleMatches reports whether a glob rule's globs match file. A relative
// glob matches the file's path relative to one of roots (the workspace
// folders), and a glob without a slash also matches the file's name.
func RuleMatches(r *agentv1.CursorRule, file string, roots []string) bool {
	file = strings.ReplaceAll(file, `\`, "/")
	candidates := []string{file, path.Base(file)}
	for _, root := range roots {
		root = strings.TrimSuffix(strings.ReplaceAll(root, `\`, "/"), "/") + "/"
		if rel, ok := strings.CutPrefix(file, root); ok {
			candidates = append(candidates, rel)
		}
	}
	for _, g := range r.GetType().GetFileGlobbed().GetGlobs() {
		for _, pattern := range strings.Split(g, ",") {
			pattern = strings.TrimPrefix(strings.TrimSpace(pattern), "./")
			if pattern == "" {
				continue
			}
			for i, c := range candidates {
				if i == 1 && strings.Contains(pattern, "/") {
					continue // a name only matches a glob without a directory
				}
				if ok, _ := doublestar.Match(pattern, c); ok {
					return true
				}
			}
		}
	}
	return false
}
