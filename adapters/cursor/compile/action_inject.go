package compile

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// injectContextAction is a follow-up the user queued (or context another
// part of the client injected). During a run the run layer delivers it
// (docs/cursor-protocol.md, "Follow-ups typed during a run"); when it
// opens a turn (the run had just ended) a user message is a user turn of
// its own and system context a message the model acts on.
var injectContextAction = &action{
	name: "queued follow-up",
	is:   func(a *agentv1.ConversationAction) bool { return a.GetInjectContextAction() != nil },
	mode: func(a *agentv1.ConversationAction) agentv1.AgentMode {
		return a.GetInjectContextAction().GetUserContext().GetUserMessage().GetMode()
	},
	open: func(in Input, mode Mode) opening {
		ic := in.Action.GetInjectContextAction()
		if um := ic.GetUserContext().GetUserMessage(); um != nil {
			if um.GetMessageId() == "" {
				um = proto.Clone(um).(*agentv1.UserMessage)
				um.MessageId = ic.GetInjectionId()
			}
			return userOpening(in, mode, um, turn.TriggerUserMessage)
		}
		return inserted(systemContext, turn.TriggerSystemContext)(in, mode)
	},
	during: DuringControl,
	insert: systemContext,
}

// systemContext is the message of injected system context.
func systemContext(a *agentv1.ConversationAction, requestID string) (string, []llm.Part) {
	ic := a.GetInjectContextAction()
	sc := ic.GetSystemContext()
	text := fmt.Sprintf("<system_context producer=%q>\n%s\n</system_context>", sc.GetProducer(), sc.GetContent())
	stable := ic.GetInjectionId()
	if stable == "" {
		stable = requestID
	}
	return conversation.UserEventID("context:"+stable, text), textParts(text)
}
