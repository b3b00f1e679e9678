package turn_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
)

func ids(msgs []conversation.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID()
	}
	return out
}

// HaveIDs succeeds when actual, a []conversation.Message, has exactly ids.
func HaveIDs(want ...string) types.GomegaMatcher {
	return WithTransform(ids, Equal(append([]string{}, want...)))
}

func input(event string, trigger turn.Trigger, context, text string) turn.Input {
	return turn.Input{EventID: event, Trigger: trigger, Contexts: []turn.Context{{Text: context}}, Runtime: turn.RuntimeParts(text, turn.Selection{})}
}

func storedContext(event, text string) conversation.Message {
	m, err := conversation.NewText(conversation.RequestContextID(event), llm.RoleUser, conversation.OriginPrompt, text)
	Expect(err).NotTo(HaveOccurred())
	return m
}

var _ = Describe("turn.InitialMessages", func() {
	var history []conversation.Message

	BeforeEach(func() {
		answer, err := conversation.NewMessage(conversation.MessageSpec{ID: "run:assistant:0", Role: llm.RoleAssistant,
			Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: "ok"}})
		Expect(err).NotTo(HaveOccurred())
		first, err := turn.InitialMessages(nil, input("e1", turn.TriggerUserMessage, "ctx A", "hello"))
		Expect(err).NotTo(HaveOccurred())
		history = append(first, answer)
	})

	DescribeTable("request-context rules",
		func(in func() turn.Input, want []string) {
			got, err := turn.InitialMessages(history, in())
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(HaveIDs(want...))
		},
		Entry("a first turn appends its context immediately before its runtime message",
			func() turn.Input { history = nil; return input("e2", turn.TriggerUserMessage, "ctx A", "hi") },
			[]string{"request-context:e2", "runtime:e2"}),
		Entry("an unchanged context is not appended again",
			func() turn.Input { return input("e2", turn.TriggerUserMessage, "ctx A", "next") },
			[]string{"runtime:e2"}),
		Entry("a changed context is appended immediately before the runtime message",
			func() turn.Input { return input("e2", turn.TriggerUserMessage, "ctx B", "next") },
			[]string{"request-context:e2", "runtime:e2"}),
		Entry("a resume with a changed context appends it",
			func() turn.Input { return input("e2", turn.TriggerResume, "ctx B", "") },
			[]string{"request-context:e2"}),
		Entry("plan execution starts a turn and carries its context",
			func() turn.Input { return input("e2", turn.TriggerExecutePlan, "ctx B", "execute") },
			[]string{"request-context:e2", "runtime:e2"}),
		Entry("a background completion never manufactures a context message",
			func() turn.Input { return input("e2", turn.TriggerBackgroundCompletion, "ctx B", "task done") },
			[]string{"runtime:e2"}),
		Entry("a summarize action never manufactures a context message",
			func() turn.Input { return input("e2", turn.TriggerSummarize, "ctx B", "") },
			[]string{}),
		Entry("an input without context adds no context message",
			func() turn.Input { return input("e2", turn.TriggerUserMessage, "", "next") },
			[]string{"runtime:e2"}),
		Entry("a retry applied on top of its own messages adds nothing",
			func() turn.Input { return input("e1", turn.TriggerUserMessage, "ctx A", "hello") },
			[]string{}),
		Entry("a retry whose context was recompiled keeps the stored context of its event",
			func() turn.Input { return input("e1", turn.TriggerUserMessage, "ctx A, recompiled", "hello") },
			[]string{}),
	)

	It("appends the final A again after A → B → A, as three distinct context events in order", func() {
		for i, ctx := range []string{"ctx B", "ctx A"} {
			event := []string{"e2", "e3"}[i]
			added, err := turn.InitialMessages(history, input(event, turn.TriggerUserMessage, ctx, "turn "+event))
			Expect(err).NotTo(HaveOccurred())
			history = append(history, added...)
		}
		var contexts []string
		for _, m := range history {
			if _, ok := conversation.RequestContextEvent(m.ID()); ok {
				contexts = append(contexts, m.ID()+"="+m.Text())
			}
		}
		Expect(contexts).To(Equal([]string{"request-context:e1=ctx A", "request-context:e2=ctx B", "request-context:e3=ctx A"}))
	})

	When("an earlier attempt of the event stored its context", func() {
		It("reuses the stored message verbatim instead of the recompiled context", func() {
			stored := storedContext("e2", "ctx B as first compiled")
			in := input("e2", turn.TriggerUserMessage, "ctx B recompiled", "next")
			in.Stored = []conversation.Message{stored}
			got, err := turn.InitialMessages(history, in)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[0].Equal(stored)).To(BeTrue())
		})

		It("ignores a stored message of another event", func() {
			in := input("e2", turn.TriggerUserMessage, "ctx B", "next")
			in.Stored = []conversation.Message{storedContext("other", "x")}
			got, err := turn.InitialMessages(history, in)
			Expect(err).NotTo(HaveOccurred())
			Expect(got[0].Text()).To(Equal("ctx B"))
		})
	})

	Describe("context channels", func() {
		// channels is an input of event with the given texts per channel.
		channels := func(event string, cs ...turn.Context) turn.Input {
			return turn.Input{EventID: event, Trigger: turn.TriggerUserMessage, Contexts: cs, Runtime: turn.RuntimeParts("go on", turn.Selection{})}
		}
		env := func(t string) turn.Context { return turn.Context{Channel: conversation.ContextEnvironment, Text: t} }
		mcp := func(t string) turn.Context { return turn.Context{Channel: conversation.ContextMCP, Text: t} }
		mode := func(t string) turn.Context { return turn.Context{Channel: conversation.ContextMode, Text: t} }
		editor := func(t string) turn.Context { return turn.Context{Channel: conversation.ContextEditor, Text: t} }

		BeforeEach(func() {
			first, err := turn.InitialMessages(nil, channels("c1", env("env A"), mcp("mcp A"), mode("agent"), editor("main.go")))
			Expect(err).NotTo(HaveOccurred())
			Expect(first).To(HaveIDs("request-context:c1", "request-context/mcp:c1", "request-context/mode:c1", "request-context/editor:c1", "runtime:c1"))
			history = first
		})

		DescribeTable("append only the channels that changed, each compared with its own latest message",
			func(cs []turn.Context, want []string) {
				got, err := turn.InitialMessages(history, channels("c2", cs...))
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(HaveIDs(want...))
			},
			Entry("nothing changed", []turn.Context{env("env A"), mcp("mcp A"), mode("agent"), editor("main.go")}, []string{"runtime:c2"}),
			Entry("an MCP server was added: the MCP channel alone",
				[]turn.Context{env("env A"), mcp("mcp A+B"), mode("agent"), editor("main.go")}, []string{"request-context/mcp:c2", "runtime:c2"}),
			Entry("the mode was switched: the mode channel alone",
				[]turn.Context{env("env A"), mcp("mcp A"), mode("plan"), editor("main.go")}, []string{"request-context/mode:c2", "runtime:c2"}),
			Entry("another file is open: the editor channel alone",
				[]turn.Context{env("env A"), mcp("mcp A"), mode("agent"), editor("util.go")}, []string{"request-context/editor:c2", "runtime:c2"}),
			Entry("the environment changed: the environment alone",
				[]turn.Context{env("env B"), mcp("mcp A"), mode("agent"), editor("main.go")}, []string{"request-context:c2", "runtime:c2"}),
			Entry("a channel the client said nothing about keeps its latest message",
				[]turn.Context{env("env A")}, []string{"runtime:c2"}),
			Entry("a cleared channel is appended over an earlier message",
				[]turn.Context{env("env A"), {Channel: conversation.ContextMCP, Text: turn.NoMCPServers, Clears: true}},
				[]string{"request-context/mcp:c2", "runtime:c2"}),
		)

		It("never appends a cleared channel to a conversation that had no message of it", func() {
			got, err := turn.InitialMessages(nil, channels("c9", env("env A"), turn.Context{Channel: conversation.ContextEditor, Text: turn.NoOpenFiles, Clears: true}))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(HaveIDs("request-context:c9", "runtime:c9"))
		})

		It("does not append a cleared channel twice", func() {
			cleared := turn.Context{Channel: conversation.ContextEditor, Text: turn.NoOpenFiles, Clears: true}
			got, err := turn.InitialMessages(history, channels("c2", cleared))
			Expect(err).NotTo(HaveOccurred())
			history = append(history, got...)
			got, err = turn.InitialMessages(history, channels("c3", cleared))
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(HaveIDs("runtime:c3"))
		})
	})

	It("gives the runtime message the event as its idempotency key", func() {
		got, err := turn.InitialMessages(history, input("e2", turn.TriggerUserMessage, "ctx A", "next"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got[0].RuntimeEventID()).To(Equal("e2"))
		Expect(got[0].Origin()).To(Equal(conversation.OriginRuntime))
	})

	It("gives the request-context message the prompt origin and the user role", func() {
		got, err := turn.InitialMessages(nil, input("e9", turn.TriggerUserMessage, "ctx", "x"))
		Expect(err).NotTo(HaveOccurred())
		Expect(got[0].Origin()).To(Equal(conversation.OriginPrompt))
		Expect(got[0].Role()).To(Equal(llm.RoleUser))
	})

	DescribeTable("refuses inputs that cannot form messages",
		func(in turn.Input) {
			_, err := turn.InitialMessages(nil, in)
			Expect(err).To(HaveOccurred())
		},
		Entry("an input needs an event id", turn.Input{Trigger: turn.TriggerUserMessage, Contexts: []turn.Context{{Text: "c"}}}),
		Entry("context text is valid UTF-8", turn.Input{EventID: "e", Trigger: turn.TriggerUserMessage, Contexts: []turn.Context{{Text: "\xff"}}}),
		Entry("runtime text is valid UTF-8", turn.Input{EventID: "e", Trigger: turn.TriggerUserMessage,
			Runtime: []llm.Part{{Kind: llm.PartText, Text: "\xff"}}}),
	)

	It("needs an event id, reported as ErrNoEvent", func() {
		_, err := turn.InitialMessages(nil, turn.Input{Trigger: turn.TriggerUserMessage})
		Expect(err).To(MatchError(turn.ErrNoEvent))
	})
})
