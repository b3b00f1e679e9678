package tools

import (
	"fmt"
	"sort"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// renderTree writes an ls tree as an indented listing, directories first.
func renderTree(b *strings.Builder, n *agentv1.LsDirectoryTreeNode, indent string) {
	if n == nil {
		return
	}
	if indent == "" {
		b.WriteString(n.GetAbsPath() + "/\n")
	}
	for _, d := range n.GetChildrenDirs() {
		name := d.GetAbsPath()
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		b.WriteString(indent + "  - " + name + "/\n")
		renderTree(b, d, indent+"  ")
	}
	for _, f := range n.GetChildrenFiles() {
		b.WriteString(indent + "  - " + f.GetName() + "\n")
	}
}

// renderGrep writes grep results in ripgrep's shape: file:line:text, file
// names, or counts, per output mode.
func renderGrep(s *agentv1.GrepSuccess) string {
	roots := make([]string, 0, len(s.GetWorkspaceResults()))
	for k := range s.GetWorkspaceResults() {
		roots = append(roots, k)
	}
	sort.Strings(roots)
	var b strings.Builder
	for _, root := range roots {
		u := s.GetWorkspaceResults()[root]
		switch {
		case u.GetContent() != nil:
			for _, fm := range u.GetContent().GetMatches() {
				for _, m := range fm.GetMatches() {
					fmt.Fprintf(&b, "%s:%d:%s\n", fm.GetFile(), m.GetLineNumber(), m.GetContent())
				}
			}
		case u.GetFiles() != nil:
			for _, f := range u.GetFiles().GetFiles() {
				b.WriteString(f + "\n")
			}
		case u.GetCount() != nil:
			for _, c := range u.GetCount().GetCounts() {
				fmt.Fprintf(&b, "%s:%d\n", c.GetFile(), c.GetCount())
			}
		}
	}
	if b.Len() == 0 {
		return "No matches found."
	}
	return b.String()
}
