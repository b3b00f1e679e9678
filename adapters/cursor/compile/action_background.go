package compile

import (
	"fmt"
	"strings"

	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// backgroundCompletionAction tells the model about background tasks
// (shells, subagents) that finished, in a message of their own.
var backgroundCompletionAction = &action{
	name: "background task completion",
	is:   func(a *agentv1.ConversationAction) bool { return a.GetBackgroundTaskCompletionAction() != nil },
	open: func(in Input, _ Mode) opening {
		text := completions(in.Action.GetBackgroundTaskCompletionAction())
		parts := []llm.Part{{Kind: llm.PartText, Text: text}}
		event := conversation.UserEventID("background:"+in.RequestID, text)
		return opening{kind: run.ActionStart, eventID: event,
			input: &turn.Input{EventID: event, Trigger: turn.TriggerBackgroundCompletion, Runtime: parts}}
	},
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
