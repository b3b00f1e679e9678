package compile

import (
	"fmt"

	"keygate/adapters/cursor/tools"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// asyncAnswerAction brings the answers to questions the user chose to
// answer later (an AskQuestion answered "async"): a message that tells
// the model the answers, in a turn of its own, or during a run at the
// run's next boundary.
var asyncAnswerAction = &action{
	name:   "async question answers",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetAsyncAskQuestionCompletionAction() != nil },
	open:   inserted(asyncAnswers, turn.TriggerAsyncAnswer),
	during: DuringInsert,
	insert: asyncAnswers,
}

func asyncAnswers(a *agentv1.ConversationAction, _ string) (string, []llm.Part) {
	c := a.GetAsyncAskQuestionCompletionAction()
	text := fmt.Sprintf("<async_question_answers tool_call_id=%q>\nThe user answered the questions you asked earlier.\n%s</async_question_answers>",
		c.GetOriginalToolCallId(), tools.AnswersText(c.GetOriginalArgs(), c.GetResult()))
	return conversation.UserEventID("ask:"+c.GetOriginalToolCallId(), text), textParts(text)
}
