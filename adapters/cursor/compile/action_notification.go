package compile

import (
	"fmt"
	"strings"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// notificationAction brings notifications the user subscribed to (a Slack
// thread, a pull request): a turn that shows them as the user's message
// and asks the model to act on them, or during a run a message the run
// takes at its next boundary.
var notificationAction = &action{
	name: "subscription notification",
	is:   func(a *agentv1.ConversationAction) bool { return a.GetSubscriptionNotificationAction() != nil },
	open: func(in Input, mode Mode) opening {
		o := inserted(notifications, turn.TriggerNotification)(in, mode)
		ns := in.Action.GetSubscriptionNotificationAction().GetNotifications()
		texts := make([]string, 0, len(ns))
		for _, n := range ns {
			texts = append(texts, n.GetText())
		}
		o.user = &agentv1.UserMessage{Text: strings.Join(texts, "\n\n"), MessageId: o.eventID}
		if len(ns) > 0 && ns[0].GetMessageId() != "" {
			o.user.MessageId = ns[0].GetMessageId()
		}
		return o
	},
	during: DuringInsert,
	insert: notifications,
}

func notifications(a *agentv1.ConversationAction, requestID string) (string, []llm.Part) {
	var b strings.Builder
	b.WriteString("<notifications>\nThe user subscribed to these updates; act on them if they concern the task.\n")
	stable := requestID
	for i, n := range a.GetSubscriptionNotificationAction().GetNotifications() {
		meta := n.GetSimulatedMessageMetadata()
		source := strings.ToLower(strings.TrimPrefix(meta.GetSubscriptionSource().String(), "SUBSCRIPTION_SOURCE_"))
		if meta.GetSubscriptionSource() == agentv1.SubscriptionSource_SUBSCRIPTION_SOURCE_UNSPECIFIED {
			source = ""
		}
		b.WriteString("<notification")
		for _, kv := range [][2]string{{"source", source}, {"title", meta.GetTitle()}, {"url", meta.GetUrl()}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, " %s=%q", kv[0], kv[1])
			}
		}
		b.WriteString(">\n" + n.GetText() + "\n</notification>\n")
		if i == 0 && n.GetMessageId() != "" {
			stable = n.GetMessageId()
		}
	}
	b.WriteString("</notifications>")
	text := b.String()
	return conversation.UserEventID("notification:"+stable, text), textParts(text)
}
