package control_test

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/types/known/timestamppb"

	"keygate/adapters/provider/providertest"
	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/ports"
)

// record stores a finished call made by hand.
func (a *api) record(id, model string, status callrecord.Status, started time.Time, u *llm.Usage) {
	a.recordFor("", id, model, status, started, u)
}

// recordFor is record for a call made in user's turn.
func (a *api) recordFor(user, id, model string, status callrecord.Status, started time.Time, u *llm.Usage) {
	a.recordKind("", user, id, "run", model, status, started, u)
}

// recordKind is recordFor for a call of kind in run.
func (a *api) recordKind(kind callrecord.Kind, user, id, run, model string, status callrecord.Status, started time.Time, u *llm.Usage) {
	rec := callrecord.Record{CallID: id, RunID: run, ConversationID: "conv", UserID: user, Kind: kind, Status: callrecord.StatusRunning,
		Model:  callrecord.ModelSnapshot{ModelID: model, ProviderKind: llm.ProviderOpenAIChat},
		Timing: callrecord.Timing{RequestStarted: started}}
	Expect(a.store.Start(context.Background(), rec)).To(Succeed())
	rec.Status, rec.Usage = status, u
	rec.Timing.FirstText = started.Add(200 * time.Millisecond)
	rec.Timing.Finished = started.Add(time.Second)
	Expect(a.store.Finish(context.Background(), rec)).To(Succeed())
}

// converse sends req through the prompt tap and the real provider client,
// as the run engine would, and drains the answer.
func (a *api) converse(callID, conversationID string, req llm.Request) {
	a.converseRouted(callID, conversationID, req, callrecord.Route{})
}

// converseRouted is converse for an attempt the router sent where route
// says.
func (a *api) converseRouted(callID, conversationID string, req llm.Request, route callrecord.Route) {
	a.upstream.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: []string{"ok"}})))
	s, err := a.tap.Stream(context.Background(), ports.ModelCall{CallID: callID, RunID: "run", ConversationID: conversationID,
		Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: a.upstream.URL + "/v1/chat/completions", APIKey: "sk-x"},
		Request:  req, Route: route})
	Expect(err).NotTo(HaveOccurred())
	for s.Next() {
	}
	Expect(s.Err()).NotTo(HaveOccurred())
	Expect(s.Close()).To(Succeed())
}

func user(id, text string) llm.Message {
	return llm.Message{ID: id, Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: text}}}
}

func reply(id, text string) llm.Message {
	return llm.Message{ID: id, Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: text}}
}

var _ = Describe("CallService", func() {
	var (
		a   *api
		ctx context.Context
	)
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
	})

	Describe("ListCalls", func() {
		BeforeEach(func() {
			for i := range 5 {
				status := callrecord.StatusCompleted
				if i == 3 {
					status = callrecord.StatusError
				}
				model := "gpt-a"
				if i%2 == 1 {
					model = "claude-b"
				}
				a.recordFor([]string{"ada", "bob"}[i/3], fmt.Sprintf("call-%d", i), model, status, at.Add(time.Duration(i)*time.Minute), nil)
			}
		})
		list := func(req *controlv1.ListCallsRequest) ([]string, string) {
			resp, err := a.calls.ListCalls(ctx, connect.NewRequest(req))
			Expect(err).NotTo(HaveOccurred())
			var ids []string
			for _, c := range resp.Msg.GetCalls() {
				ids = append(ids, c.GetCallId())
			}
			return ids, resp.Msg.GetNextPageToken()
		}

		It("lists newest first", func() {
			ids, next := list(&controlv1.ListCallsRequest{})
			Expect(ids).To(Equal([]string{"call-4", "call-3", "call-2", "call-1", "call-0"}))
			Expect(next).To(BeEmpty())
		})

		It("pages with the token of the previous page", func() {
			ids, next := list(&controlv1.ListCallsRequest{PageSize: 2})
			Expect(ids).To(Equal([]string{"call-4", "call-3"}))
			ids, next = list(&controlv1.ListCallsRequest{PageSize: 2, PageToken: next})
			Expect(ids).To(Equal([]string{"call-2", "call-1"}))
			ids, next = list(&controlv1.ListCallsRequest{PageSize: 2, PageToken: next})
			Expect(ids).To(Equal([]string{"call-0"}))
			Expect(next).To(BeEmpty())
		})

		DescribeTable("filters",
			func(f *controlv1.CallFilter, want []string) {
				ids, _ := list(&controlv1.ListCallsRequest{Filter: f})
				Expect(ids).To(Equal(want))
			},
			Entry("by model", &controlv1.CallFilter{ModelId: "claude-b"}, []string{"call-3", "call-1"}),
			Entry("by status", &controlv1.CallFilter{Status: controlv1.CallStatus_CALL_STATUS_ERROR}, []string{"call-3"}),
			Entry("by user", &controlv1.CallFilter{UserId: "bob"}, []string{"call-4", "call-3"}),
			Entry("by a time range that includes its start and excludes its end",
				&controlv1.CallFilter{StartTime: timestamppb.New(at.Add(time.Minute)), EndTime: timestamppb.New(at.Add(3 * time.Minute))},
				[]string{"call-2", "call-1"}),
		)

		It("says each call's kind and filters by it; a call recorded without a kind is an Agent call", func() {
			a.recordKind(callrecord.KindTab, "ada", "call-tab", "req-1", "fim", callrecord.StatusCompleted, at.Add(10*time.Minute), nil)
			a.recordKind(callrecord.KindTest, "", "call-test", "test", "gpt-a", callrecord.StatusCompleted, at.Add(11*time.Minute), nil)
			resp, err := a.calls.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			kinds := map[string]controlv1.CallKind{}
			for _, c := range resp.Msg.GetCalls() {
				kinds[c.GetCallId()] = c.GetKind()
			}
			Expect(kinds).To(HaveKeyWithValue("call-tab", controlv1.CallKind_CALL_KIND_TAB))
			Expect(kinds).To(HaveKeyWithValue("call-test", controlv1.CallKind_CALL_KIND_TEST))
			Expect(kinds).To(HaveKeyWithValue("call-0", controlv1.CallKind_CALL_KIND_AGENT))
			ids, _ := list(&controlv1.ListCallsRequest{Filter: &controlv1.CallFilter{Kind: controlv1.CallKind_CALL_KIND_TAB}})
			Expect(ids).To(Equal([]string{"call-tab"}))
			ids, _ = list(&controlv1.ListCallsRequest{Filter: &controlv1.CallFilter{Kind: controlv1.CallKind_CALL_KIND_TEST}})
			Expect(ids).To(Equal([]string{"call-test"}))
			ids, _ = list(&controlv1.ListCallsRequest{Filter: &controlv1.CallFilter{Kind: controlv1.CallKind_CALL_KIND_AGENT}})
			Expect(ids).To(Equal([]string{"call-4", "call-3", "call-2", "call-1", "call-0"}))
		})

		It("says which client made a call of the compatible API and filters by kind api", func() {
			rec := callrecord.Record{CallID: "call-api", RunID: "req-9", UserID: "ada", Kind: callrecord.KindAPI, Client: "codex",
				Status: callrecord.StatusRunning, Model: callrecord.ModelSnapshot{ModelID: "gpt-a", ProviderKind: llm.ProviderOpenAIResponses},
				Timing: callrecord.Timing{RequestStarted: at.Add(12 * time.Minute)}}
			Expect(a.store.Start(ctx, rec)).To(Succeed())
			resp, err := a.calls.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{
				Filter: &controlv1.CallFilter{Kind: controlv1.CallKind_CALL_KIND_API}}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetCalls()).To(HaveLen(1))
			Expect(resp.Msg.GetCalls()[0].GetKind()).To(Equal(controlv1.CallKind_CALL_KIND_API))
			Expect(resp.Msg.GetCalls()[0].GetClient()).To(Equal("codex"))
		})

		It("refuses a kind it does not know", func() {
			_, err := a.calls.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{Filter: &controlv1.CallFilter{Kind: 99}}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		})

		It("refuses a page token it did not issue", func() {
			_, err := a.calls.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{PageToken: "%%%"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		})
	})

	Describe("GetCall", func() {
		It("shows timings and usage of a call", func() {
			a.recordFor("ada", "c1", "gpt-a", callrecord.StatusCompleted, at, &llm.Usage{Input: 10, CacheRead: 90, Output: 5})
			resp, err := a.calls.GetCall(ctx, connect.NewRequest(&controlv1.GetCallRequest{CallId: "c1"}))
			Expect(err).NotTo(HaveOccurred())
			c := resp.Msg.GetCall()
			Expect(c.GetUserId()).To(Equal("ada"))
			Expect(c.GetTiming().GetTtftMs()).To(Equal(int64(200)))
			Expect(c.GetTiming().GetDurationMs()).To(Equal(int64(1000)))
			Expect(c.GetUsage().GetCacheReadTokens()).To(Equal(int64(90)))
			Expect(resp.Msg.GetRequest()).To(BeNil())
		})

		It("answers NotFound for an unknown call", func() {
			_, err := a.calls.GetCall(ctx, connect.NewRequest(&controlv1.GetCallRequest{CallId: "nope"}))
			Expect(err).To(HaveConnectCode(connect.CodeNotFound))
		})
	})

	Describe("cache insight", func() {
		base := llm.Request{Model: "gpt-a", Instructions: "be brief", Messages: []llm.Message{user("u1", "hi")}}
		insight := func(callID string) *controlv1.CacheInsight {
			resp, err := a.calls.GetCall(ctx, connect.NewRequest(&controlv1.GetCallRequest{CallId: callID}))
			Expect(err).NotTo(HaveOccurred())
			return resp.Msg.GetCacheInsight()
		}

		It("calls the first call of a conversation its first", func() {
			a.converse("k1", "conv-1", base)
			Expect(insight("k1").GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_FIRST))
		})

		It("finds a prompt that extends the previous call's stable", func() {
			a.converse("k1", "conv-1", base)
			next := base
			next.Messages = []llm.Message{user("u1", "hi"), reply("a1", "hello"), user("u2", "more")}
			a.converse("k2", "conv-1", next)
			in := insight("k2")
			Expect(in.GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_STABLE))
			Expect(in.GetPreviousCallId()).To(Equal("k1"))
			Expect(in.GetCommonMessages()).To(Equal(int32(1)))
			Expect(in.GetPrefixTokensEstimate()).To(BeNumerically(">", 0))
			Expect(in.GetPrefixTokensEstimate()).To(BeNumerically("<", in.GetPromptTokensEstimate()))
		})

		It("locates an edited message and says why the prefix broke", func() {
			first := base
			first.Messages = []llm.Message{user("u1", "hi"), reply("a1", "hello"), user("u2", "more")}
			a.converse("k1", "conv-1", first)
			edited := first
			edited.Messages = []llm.Message{user("u1", "hi"), reply("a1", "HELLO"), user("u2", "more"), user("u3", "again")}
			a.converse("k2", "conv-1", edited)
			in := insight("k2")
			Expect(in.GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_BROKEN))
			Expect(in.GetBreakField()).To(Equal("messages[1].assistant.text"))
			Expect(in.GetBreakMessageId()).To(Equal("a1"))
			Expect(in.GetCommonMessages()).To(Equal(int32(1)))
			Expect(in.GetExplanation()).To(ContainSubstring("only 1 message (about"))
		})

		It("reports changed instructions as a break before any message", func() {
			a.converse("k1", "conv-1", base)
			changed := base
			changed.Instructions = "be verbose"
			a.converse("k2", "conv-1", changed)
			in := insight("k2")
			Expect(in.GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_BROKEN))
			Expect(in.GetBreakField()).To(Equal("instructions"))
			Expect(in.GetPrefixTokensEstimate()).To(BeZero())
		})

		It("names the causes of a break: a mode switch and a switch to another upstream model", func() {
			first := base
			first.PromptName = "agent"
			a.converse("k1", "conv-1", first)
			switched := first
			switched.PromptName, switched.Model = "plan", "gpt-b"
			switched.Messages = []llm.Message{user("u1", "hi"), reply("a1", "hello"), user("u2", "plan it")}
			a.converse("k2", "conv-1", switched)
			in := insight("k2")
			Expect(in.GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_BROKEN))
			Expect(in.GetCauses()).To(Equal([]controlv1.CacheCause{controlv1.CacheCause_CACHE_CAUSE_MODE_SWITCH, controlv1.CacheCause_CACHE_CAUSE_MODEL_SWITCH}))
			Expect(in.GetExplanation()).To(ContainSubstring("Cause: mode switch (agent to plan), model switch"))
		})

		It("names what a stable call appended: the MCP servers and the editor", func() {
			a.converse("k1", "conv-1", base)
			next := base
			next.Messages = []llm.Message{user("u1", "hi"), reply("a1", "hello"),
				user(conversation.ContextID(conversation.ContextMCP, "e2"), "<mcp_tools>…</mcp_tools>"),
				user(conversation.ContextID(conversation.ContextEditor, "e2"), "<editor_state>…</editor_state>"), user("u2", "more")}
			a.converse("k2", "conv-1", next)
			in := insight("k2")
			Expect(in.GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_STABLE))
			Expect(in.GetCauses()).To(Equal([]controlv1.CacheCause{controlv1.CacheCause_CACHE_CAUSE_MCP_CHANGE, controlv1.CacheCause_CACHE_CAUSE_CONTEXT_CHANGE}))
		})

		It("names a move of the conversation to another target as the break, however well the prompt extends", func() {
			a.converseRouted("k1", "conv-1", base, callrecord.Route{ID: "sonnet", Target: "east"})
			next := base
			next.Messages = []llm.Message{user("u1", "hi"), reply("a1", "hello"), user("u2", "more")}
			a.converseRouted("k2", "conv-1", next, callrecord.Route{ID: "sonnet", Target: "west", Attempt: 1,
				Moved: "failover: target east failed before the first token (HTTP 503: overloaded)"})
			resp, err := a.calls.GetCall(ctx, connect.NewRequest(&controlv1.GetCallRequest{CallId: "k2"}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetCall().GetRoute().GetTargetModelId()).To(Equal("west"))
			Expect(resp.Msg.GetCall().GetRoute().GetMoved()).To(HavePrefix("failover: target east"))
			in := resp.Msg.GetCacheInsight()
			Expect(in.GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_BROKEN))
			Expect(in.GetBreakField()).To(Equal("target"))
			Expect(in.GetBreakCause()).To(Equal("moved"))
			Expect(in.GetCommonMessages()).To(Equal(int32(1)))
			Expect(in.GetPrefixTokensEstimate()).To(BeZero())
			Expect(in.GetExplanation()).To(ContainSubstring("a move to target west (failover: target east failed"))

			By("a call that stayed on its target is judged by its prompt alone")
			third := next
			third.Messages = append(next.Messages, reply("a2", "sure"), user("u3", "go on"))
			a.converseRouted("k3", "conv-1", third, callrecord.Route{ID: "sonnet", Target: "west"})
			Expect(insight("k3").GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_STABLE))
		})

		It("compares only calls of the same conversation", func() {
			a.converse("k1", "conv-1", base)
			a.converse("k2", "conv-2", base)
			Expect(insight("k2").GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_FIRST))
		})

		It("says unknown when the previous prompt is no longer kept", func() {
			a.record("old", "gpt-a", callrecord.StatusCompleted, time.Now().Add(-time.Hour), nil)
			a.converse("k2", "conv", base)
			Expect(insight("k2").GetState()).To(Equal(controlv1.CacheInsightState_CACHE_INSIGHT_STATE_UNKNOWN))
		})
	})
})
