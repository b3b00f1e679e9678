package compile

import (
	"path"
	"strings"

	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// layoutLimit bounds one rendered project layout: it is part of the
// request context every later call sends.
const layoutLimit = 16 << 10

// layouts renders the client's project layouts as indented trees.
func layouts(nodes []*agentv1.LsDirectoryTreeNode) []turn.Layout {
	out := make([]turn.Layout, 0, len(nodes))
	for _, n := range nodes {
		var b strings.Builder
		if !renderLayout(&b, n, "") {
			b.WriteString("[... more entries left out ...]\n")
		}
		out = append(out, turn.Layout{Root: n.GetAbsPath(), Tree: strings.TrimSuffix(b.String(), "\n")})
	}
	return out
}

// renderLayout writes n's entries, directories first; false when the
// limit cut it short.
func renderLayout(b *strings.Builder, n *agentv1.LsDirectoryTreeNode, indent string) bool {
	for _, d := range n.GetChildrenDirs() {
		if b.Len() > layoutLimit {
			return false
		}
		b.WriteString(indent + "- " + path.Base(d.GetAbsPath()) + "/\n")
		if !renderLayout(b, d, indent+"  ") {
			return false
		}
	}
	for _, f := range n.GetChildrenFiles() {
		if b.Len() > layoutLimit {
			return false
		}
		b.WriteString(indent + "- " + f.GetName() + "\n")
	}
	return true
}
