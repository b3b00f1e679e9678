package compile

import (
	"fmt"
	"strings"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// backgroundCompletionAction tells the model about background tasks
// (shells, subagents) that finished, in a message of their own: a turn of
// its own, or during a run a message the run takes at its next boundary.
var backgroundCompletionAction = &action{
	name:   "background task completion",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetBackgroundTaskCompletionAction() != nil },
	open:   inserted(backgroundCompletion, turn.TriggerBackgroundCompletion),
	during: DuringInsert,
	insert: backgroundCompletion,
}

func backgroundCompletion(a *agentv1.ConversationAction, requestID string) (string, []llm.Part) {
	text := completions(a.GetBackgroundTaskCompletionAction())
	return conversation.UserEventID("background:"+requestID, text), textParts(text)
}

// completions renders finished background tasks (shells, subagents) as the
// message that tells the model about them.
func completions(a *agentv1.BackgroundTaskCompletionAction) string {
	var b strings.Builder
	b.WriteString("<background_task_completions>\n")
	for _, c := range a.GetCompletions() {
		kind := strings.ToLower(strings.TrimPrefix(c.GetKind().String(), "BACKGROUND_TASK_KIND_"))
		status := strings.ToLower(strings.TrimPrefix(c.GetStatus().String(), "BACKGROUND_TASK_STATUS_"))
		fmt.Fprintf(&b, "<task id=%q kind=%q status=%q title=%q", c.GetTaskId(), kind, status, c.GetTitle())
		if c.GetOutputPath() != "" {
			fmt.Fprintf(&b, " output_path=%q", c.GetOutputPath())
		}
		b.WriteString(">")
		b.WriteString(c.GetDetail())
		b.WriteString("</task>\n")
	}
	b.WriteString("</background_task_completions>")
	return b.String()
}
