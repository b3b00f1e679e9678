package cursortest

import (
	"slices"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// approved decides whether a shell command runs, as the client's auto-run
// does: from the exec's parse, never from the command text. A command
// whose parse failed or names no executable, or names one outside AutoRun,
// is put to the user (recorded in Asked).
func (w *Workspace) approved(a *agentv1.ShellArgs) bool {
	if w.AutoRun == nil {
		return true
	}
	p := a.GetParsingResult()
	auto := p != nil && !p.GetParsingFailed() && len(p.GetExecutableCommands()) > 0
	for _, e := range p.GetExecutableCommands() {
		auto = auto && slices.Contains(w.AutoRun, e.GetName())
	}
	if auto {
		return true
	}
	w.mu.Lock()
	w.asked = append(w.asked, a.GetCommand())
	w.mu.Unlock()
	return w.Approve != nil && w.Approve(a)
}

// Asked returns the shell commands the client put to the user, in order.
func (w *Workspace) Asked() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.asked...)
}
