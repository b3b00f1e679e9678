package compile_test

import (
	"crypto/sha256"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/compile"
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

var _ = Describe("ModeOf", func() {
	DescribeTable("picks the turn's mode",
		func(msg, conv agentv1.AgentMode, subagent string, want compile.Mode) {
			m, err := compile.ModeOf(msg, conv, subagent)
			Expect(err).NotTo(HaveOccurred())
			Expect(m).To(Equal(want))
		},
		Entry("the user message's mode wins", agentv1.AgentMode_AGENT_MODE_PLAN, agentv1.AgentMode_AGENT_MODE_ASK, "", compile.ModePlan),
		Entry("an unspecified message mode falls back to the conversation's", agentv1.AgentMode_AGENT_MODE_UNSPECIFIED, agentv1.AgentMode_AGENT_MODE_ASK, "", compile.ModeAsk),
		Entry("nothing specified is agent", agentv1.AgentMode_AGENT_MODE_UNSPECIFIED, agentv1.AgentMode_AGENT_MODE_UNSPECIFIED, "", compile.ModeAgent),
		Entry("a subagent type makes a subagent whatever the mode", agentv1.AgentMode_AGENT_MODE_ASK, agentv1.AgentMode_AGENT_MODE_UNSPECIFIED, "explore", compile.ModeSubagent),
	)

	It("refuses a mode Keygate has no prompt for", func() {
		_, err := compile.ModeOf(agentv1.AgentMode_AGENT_MODE_TRIAGE, agentv1.AgentMode_AGENT_MODE_UNSPECIFIED, "")
		var unsupported *compile.UnsupportedModeError
		Expect(err).To(BeAssignableToTypeOf(unsupported))
	})
})

var _ = Describe("Model", func() {
	gpt := ports.ModelConfig{ModelID: "gpt-5.5", ProviderKind: llm.ProviderOpenAIResponses, BaseURL: "https://api.openai.com/v1", ReasoningEffort: "low"}
	DescribeTable("applies the picker's parameters to the configured model",
		func(cfg ports.ModelConfig, maxMode bool, params map[string]string, check func(run.Model)) {
			rm := &agentv1.RequestedModel{ModelId: "m", MaxMode: maxMode}
			for k, v := range params {
				rm.Parameters = append(rm.Parameters, &agentv1.RequestedModel_ModelParameterValue{Id: k, Value: v})
			}
			check(compile.Model(ports.Endpoint{}, cfg, rm))
		},
		Entry("the configured effort and the family's window apply without parameters", gpt, false, map[string]string{}, func(m run.Model) {
			Expect(m.Settings.Reasoning).To(Equal(llm.Reasoning{Enabled: true, Effort: "low"}))
			Expect(m.Settings.Model).To(Equal("gpt-5.5"))
			Expect(m.Settings.ServiceTier).To(BeEmpty())
			Expect(m.ContextWindow).To(BeEquivalentTo(272000))
		}),
		Entry("reasoning overrides the configured effort", gpt, false, map[string]string{"reasoning": "xhigh"}, func(m run.Model) {
			Expect(m.Settings.Reasoning).To(Equal(llm.Reasoning{Enabled: true, Effort: "xhigh"}))
		}),
		Entry("none asks an OpenAI model not to reason", gpt, false, map[string]string{"reasoning": "none"}, func(m run.Model) {
			Expect(m.Settings.Reasoning).To(Equal(llm.Reasoning{Effort: "none"}))
		}),
		Entry("a level the model does not offer keeps the default", gpt, false, map[string]string{"reasoning": "max"}, func(m run.Model) {
			Expect(m.Settings.Reasoning.Effort).To(Equal("low"))
		}),
		Entry("fast asks for the fast tier", gpt, false, map[string]string{"fast": "true"}, func(m run.Model) {
			Expect(m.Settings.ServiceTier).To(Equal(llm.ServiceTierFast))
		}),
		Entry("fast is ignored where the API has no fast tier", ports.ModelConfig{ModelID: "gpt-5.5", ProviderKind: llm.ProviderOpenAIChat, BaseURL: "http://localhost:4000/v1"},
			false, map[string]string{"fast": "true"}, func(m run.Model) {
				Expect(m.Settings.ServiceTier).To(BeEmpty())
			}),
		Entry("the long context widens the window", gpt, false, map[string]string{"context": "1.05m"}, func(m run.Model) {
			Expect(m.ContextWindow).To(BeEquivalentTo(1050000))
		}),
		Entry("Max mode picks the long context", gpt, true, map[string]string{}, func(m run.Model) {
			Expect(m.ContextWindow).To(BeEquivalentTo(1050000))
		}),
		Entry("a context the model does not offer keeps the default", gpt, false, map[string]string{"context": "5m"}, func(m run.Model) {
			Expect(m.ContextWindow).To(BeEquivalentTo(272000))
		}),
		Entry("a configured window wins over the family's", ports.ModelConfig{ModelID: "gpt-5.5", ContextWindowTokens: 128000}, false, map[string]string{}, func(m run.Model) {
			Expect(m.ContextWindow).To(BeEquivalentTo(128000))
		}),
		Entry("an unknown model without a configured window compacts at nothing and leaves reasoning to the provider", ports.ModelConfig{ModelID: "my-finetune"},
			false, map[string]string{"reasoning": "high"}, func(m run.Model) {
				Expect(m.ContextWindow).To(BeZero())
				Expect(m.Settings.Reasoning).To(Equal(llm.Reasoning{}))
			}),
	)
})

var _ = Describe("Compile", func() {
	var in compile.Input
	BeforeEach(func() {
		in = compile.Input{RequestID: "req", RunID: "req:00000001", ConversationID: "conv", Now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC),
			Request: &agentv1.AgentRunRequest{}}
	})

	userAction := func(text string, rc *agentv1.RequestContext) *agentv1.ConversationAction {
		return &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{UserMessageAction: &agentv1.UserMessageAction{
			UserMessage: &agentv1.UserMessage{Text: text, MessageId: "m1"}, RequestContext: rc}}}
	}
	rc := &agentv1.RequestContext{Env: &agentv1.RequestContextEnv{OsVersion: "linux", Shell: "bash", WorkspacePaths: []string{"/ws"}}}

	It("adds the request context as its own message before the runtime message", func() {
		in.Action = userAction("Fix it", rc)
		out, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		msgs := out.Run.InitialMessages
		Expect(msgs).To(HaveLen(3), "no MCP message: a conversation without servers needs none")
		Expect(msgs[0].ID()).To(Equal(conversation.RequestContextID(out.EventID)))
		Expect(msgs[0].Text()).To(And(ContainSubstring("linux"), ContainSubstring("/ws")))
		Expect(msgs[1].ID()).To(Equal(conversation.ContextID(conversation.ContextMode, out.EventID)))
		Expect(msgs[1].Text()).To(HavePrefix("<mode>\nMode: agent."))
		Expect(msgs[2].ID()).To(Equal(conversation.RuntimeID(out.EventID)))
		Expect(msgs[2].Text()).To(ContainSubstring("<user_query>\nFix it\n</user_query>"))
		Expect(out.Run.Action.Kind).To(Equal(run.ActionStart))
		Expect(out.Run.Prompt.Instructions).NotTo(ContainSubstring("Mode:"), "the mode travels in its own message")
		Expect(out.Run.Prompt.Name).To(Equal("agent"))
		Expect(out.Run.Prompt.SharedTools).To(BeNumerically(">", 0))
	})

	It("appends the client's custom system prompt to the mode's instructions", func() {
		in.Action = userAction("Fix it", nil)
		in.Request = &agentv1.AgentRunRequest{CustomSystemPrompt: proto.String("Answer in French.")}
		out, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Run.Prompt.Instructions).To(HaveSuffix("\n\nAnswer in French."))
	})

	It("leaves an unchanged request context out of the next turn", func() {
		in.Action = userAction("Fix it", rc)
		first, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		in.History = first.Run.InitialMessages
		in.Action = userAction("And this", rc)
		in.Action.GetUserMessageAction().GetUserMessage().MessageId = "m2"
		next, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(next.Run.InitialMessages).To(HaveLen(1))
		Expect(next.Run.InitialMessages[0].Text()).To(ContainSubstring("And this"))
	})

	It("gives an edited message a new event and a re-sent one the same", func() {
		in.Action = userAction("Fix it", nil)
		a, _ := compile.Compile(in)
		b, _ := compile.Compile(in)
		in.Action = userAction("Fix it now", nil)
		c, _ := compile.Compile(in)
		Expect(a.EventID).To(Equal(b.EventID))
		Expect(c.EventID).NotTo(Equal(a.EventID))
	})

	It("maps /summarize and SummarizeAction to a compaction with the compaction prompt and no tools", func() {
		in.Action = userAction("/summarize", nil)
		out, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Run.Action.Kind).To(Equal(run.ActionCompact))
		Expect(out.Run.Prompt.Tools).To(BeEmpty())
		in.Action = &agentv1.ConversationAction{Action: &agentv1.ConversationAction_SummarizeAction{SummarizeAction: &agentv1.SummarizeAction{}}}
		out, err = compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Run.Action.Kind).To(Equal(run.ActionCompact))
	})

	It("turns an approved plan into a user turn in the plan's execution mode", func() {
		in.Action = &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ExecutePlanAction{ExecutePlanAction: &agentv1.ExecutePlanAction{
			Plan: &agentv1.ConversationPlan{Plan: "1. add tests"}, ExecutionMode: agentv1.AgentMode_AGENT_MODE_AGENT, KickoffMessageId: proto.String("k1"),
			RequestContext: rc}}}
		in.ConversationMode = agentv1.AgentMode_AGENT_MODE_PLAN
		out, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Mode).To(Equal(compile.ModeAgent))
		Expect(out.Run.InitialMessages).To(HaveLen(3))
		Expect(out.Run.InitialMessages[1].Text()).To(HavePrefix("<mode>\nMode: agent."))
		Expect(out.Run.InitialMessages[2].Text()).To(And(ContainSubstring("<approved_plan>\n1. add tests\n</approved_plan>"),
			ContainSubstring("Execute the approved plan.")))
		Expect(out.UserMessage.GetMessageId()).To(Equal("k1"))
	})

	It("tells the model about finished background tasks in a message of their own, without a request context", func() {
		in.Action = &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundTaskCompletionAction{
			BackgroundTaskCompletionAction: &agentv1.BackgroundTaskCompletionAction{Completions: []*agentv1.BackgroundTaskCompletion{{
				TaskId: "t1", Kind: agentv1.BackgroundTaskKind_BACKGROUND_TASK_KIND_SHELL, Status: agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS,
				Title: "npm test", Detail: proto.String("42 passed")}}}}}
		out, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Run.InitialMessages).To(HaveLen(1))
		Expect(out.Run.InitialMessages[0].Text()).To(And(ContainSubstring(`kind="shell" status="success" title="npm test"`), ContainSubstring("42 passed")))
	})

	It("resumes the pending round it is given", func() {
		in.Action = &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ResumeAction{ResumeAction: &agentv1.ResumeAction{}}}
		in.PendingRoundID = "run:round:0"
		out, err := compile.Compile(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Run.Action).To(Equal(run.Action{Kind: run.ActionResume, PendingRoundID: "run:round:0"}))
		Expect(out.Run.InitialMessages).To(BeEmpty())
	})

	Context("with request_context_parts", func() {
		var rules []byte
		BeforeEach(func() {
			var err error
			rules, err = proto.Marshal(&agentv1.RequestContextRulesPart{Rules: []*agentv1.CursorRule{{FullPath: "/ws/.cursor/rules/go.mdc", Content: "Use gofmt."}}})
			Expect(err).NotTo(HaveOccurred())
		})
		parts := func(data []byte, length uint32) *agentv1.ConversationAction {
			sum := sha256.Sum256(data)
			a := userAction("Go", nil)
			a.RequestContextParts = &agentv1.RequestContextPartReferences{RulesBlobId: sum[:], RulesByteLength: length,
				DynamicContext: &agentv1.RequestContext{Env: &agentv1.RequestContextEnv{Shell: "zsh"}}}
			return a
		}

		It("merges the resolved parts into the dynamic context", func() {
			in.Action = parts(rules, uint32(len(rules)))
			Expect(compile.PartIDs(in.Action)).To(HaveLen(1))
			sum := sha256.Sum256(rules)
			in.Blobs = map[string][]byte{string(sum[:]): rules}
			out, err := compile.Compile(in)
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Run.InitialMessages[0].Text()).To(And(ContainSubstring("Use gofmt."), ContainSubstring("zsh")))
		})

		DescribeTable("refuses a part that does not match its reference",
			func(mutate func(*compile.Input, []byte)) {
				mutate(&in, rules)
				_, err := compile.Compile(in)
				var bad *compile.BadPartError
				Expect(err).To(BeAssignableToTypeOf(bad))
			},
			Entry("an unresolved blob", func(in *compile.Input, r []byte) { in.Action = parts(r, uint32(len(r))) }),
			Entry("a wrong byte length", func(in *compile.Input, r []byte) {
				in.Action = parts(r, 3)
				sum := sha256.Sum256(r)
				in.Blobs = map[string][]byte{string(sum[:]): r}
			}),
		)
	})
})

// actionSpec is one conversation action as a client sends it and what the
// turn it opens runs.
type actionSpec struct {
	action *agentv1.ConversationAction
	kind   run.ActionKind
	// messages is how many initial messages the run appends (a fresh
	// conversation, no request context): a turn the user starts has its
	// mode's message before its own.
	messages int
	// shown says the turn shows a user message.
	shown bool
	// during is what the action does while a run works.
	during compile.During
}

// actionSpecs holds a spec of every registered conversation action; a spec
// below fails when an action has none.
var actionSpecs = map[string]actionSpec{
	"summarize": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_SummarizeAction{SummarizeAction: &agentv1.SummarizeAction{}}},
		kind: run.ActionCompact, during: compile.DuringQueue},
	"resume": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ResumeAction{ResumeAction: &agentv1.ResumeAction{}}},
		kind: run.ActionResume, during: compile.DuringIgnore},
	"execute plan": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ExecutePlanAction{ExecutePlanAction: &agentv1.ExecutePlanAction{
		Plan: &agentv1.ConversationPlan{Plan: "1. test"}}}}, kind: run.ActionStart, messages: 2, shown: true, during: compile.DuringQueue},
	"background task completion": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundTaskCompletionAction{
		BackgroundTaskCompletionAction: &agentv1.BackgroundTaskCompletionAction{}}}, kind: run.ActionStart, messages: 1, during: compile.DuringInsert},
	"user message": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_UserMessageAction{UserMessageAction: &agentv1.UserMessageAction{
		UserMessage: &agentv1.UserMessage{Text: "hi", MessageId: "m1"}}}}, kind: run.ActionStart, messages: 2, shown: true, during: compile.DuringControl},
	"shell command": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_ShellCommandAction{ShellCommandAction: &agentv1.ShellCommandAction{
		ShellCommand: &agentv1.ShellCommand{Command: "ls"}, ExecId: "e1"}}}, kind: run.ActionRecord, messages: 1, during: compile.DuringQueue},
	"start plan": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_StartPlanAction{StartPlanAction: &agentv1.StartPlanAction{
		UserMessage: &agentv1.UserMessage{Text: "plan a cache", MessageId: "m2"}}}}, kind: run.ActionStart, messages: 2, shown: true, during: compile.DuringQueue},
	"async question answers": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_AsyncAskQuestionCompletionAction{AsyncAskQuestionCompletionAction: &agentv1.AsyncAskQuestionCompletionAction{
		OriginalToolCallId: "c1", Result: &agentv1.AskQuestionResult{Result: &agentv1.AskQuestionResult_Success{Success: &agentv1.AskQuestionSuccess{}}}}}},
		kind: run.ActionStart, messages: 1, during: compile.DuringInsert},
	"background shell": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundShellAction{BackgroundShellAction: &agentv1.BackgroundShellAction{ToolCallId: "c1"}}},
		kind: run.ActionRecord, during: compile.DuringControl},
	"background subagent": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_BackgroundSubagentAction{BackgroundSubagentAction: &agentv1.BackgroundSubagentAction{ToolCallId: "c1"}}},
		kind: run.ActionRecord, during: compile.DuringControl},
	"subscription notification": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_SubscriptionNotificationAction{SubscriptionNotificationAction: &agentv1.SubscriptionNotificationAction{
		Notifications: []*agentv1.UserMessage{{Text: "PR #7 was approved"}}}}}, kind: run.ActionStart, messages: 2, shown: true, during: compile.DuringInsert},
	"goal continuation": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_GoalContinuationAction{GoalContinuationAction: &agentv1.GoalContinuationAction{}}},
		kind: run.ActionStart, messages: 1, during: compile.DuringIgnore},
	"queued follow-up": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_InjectContextAction{InjectContextAction: &agentv1.InjectContextAction{InjectionId: "i1",
		Payload: &agentv1.InjectContextAction_UserContext{UserContext: &agentv1.UserContextInjection{UserMessage: &agentv1.UserMessage{Text: "and tests"}}}}}},
		kind: run.ActionStart, messages: 2, shown: true, during: compile.DuringControl},
	"cancel": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_CancelAction{CancelAction: &agentv1.CancelAction{}}}, kind: run.ActionRecord, during: compile.DuringControl},
	"cancel subagent": {action: &agentv1.ConversationAction{Action: &agentv1.ConversationAction_CancelSubagentAction{CancelSubagentAction: &agentv1.CancelSubagentAction{SubagentId: "c1"}}},
		kind: run.ActionRecord, during: compile.DuringControl},
}

var _ = Describe("Compile's conversation actions", func() {
	It("has a spec for every registered action", func() {
		var specced []string
		for n := range actionSpecs {
			specced = append(specced, n)
		}
		Expect(specced).To(ConsistOf(compile.ActionNames()))
	})

	var entries []TableEntry
	for _, name := range compile.ActionNames() {
		entries = append(entries, Entry(name, name))
	}
	DescribeTable("each opens a turn of its kind, with the mode's prompt and the common run fields",
		func(name string) {
			spec, ok := actionSpecs[name]
			Expect(ok).To(BeTrue(), "no spec for action %q", name)
			out, err := compile.Compile(compile.Input{RequestID: "req", RunID: "req:1", ConversationID: "conv", Request: &agentv1.AgentRunRequest{},
				Action: spec.action, Now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)})
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Run.Action.Kind).To(Equal(spec.kind))
			Expect(out.Run.InitialMessages).To(HaveLen(spec.messages))
			Expect(out.UserMessage != nil).To(Equal(spec.shown))
			Expect(out.EventID != "").To(Equal(spec.messages > 0))
			Expect(out.Run.RunID).To(Equal("req:1"))
			Expect(out.Run.ConversationID).To(Equal("conv"))
			Expect(out.Run.Prompt.Instructions).NotTo(BeEmpty())
			mid, err := compile.WhileRunning(spec.action, "req")
			Expect(err).NotTo(HaveOccurred())
			Expect(mid.What).To(Equal(spec.during))
			if mid.What == compile.DuringInsert {
				Expect(mid.Message.Text()).NotTo(BeEmpty())
			}
			if mid.What == compile.DuringIgnore {
				Expect(mid.Reason).NotTo(BeEmpty())
			}
		},
		entries,
	)

	It("refuses an action that cannot open a turn", func() {
		_, err := compile.Compile(compile.Input{RequestID: "req", Request: &agentv1.AgentRunRequest{},
			Action: &agentv1.ConversationAction{}})
		Expect(err).To(MatchError(compile.ErrUnsupportedAction))
	})
})
