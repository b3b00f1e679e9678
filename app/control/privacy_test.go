package control_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/prefix"
	"keygate/ports"
)

// promptStore is an in-memory ports.PromptStore that can be made to fail.
type promptStore struct {
	mu   sync.Mutex
	puts map[string]ports.StoredPrompt
	fail error
}

func newPromptStore() *promptStore { return &promptStore{puts: map[string]ports.StoredPrompt{}} }

func (p *promptStore) PutPrompt(ctx context.Context, id string, sp ports.StoredPrompt) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.fail != nil {
		return p.fail
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.puts[id] = sp
	return nil
}

func (p *promptStore) Prompt(_ context.Context, id string) (ports.StoredPrompt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sp, ok := p.puts[id]; ok {
		return sp, nil
	}
	return ports.StoredPrompt{}, ports.ErrNotFound
}

func (p *promptStore) PurgePrompts(_ context.Context, cutoff time.Time) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for id, sp := range p.puts {
		if sp.At.Before(cutoff) {
			delete(p.puts, id)
			n++
		}
	}
	return n, nil
}

// provider remembers the calls it was given.
type provider struct{ calls []string }

func (p *provider) Stream(_ context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	p.calls = append(p.calls, call.CallID)
	return nil, errors.New("no stream in this spec")
}

// secretRequest is a conversation whose every text is a marked secret.
func secretRequest() llm.Request {
	return llm.Request{Model: "m", Instructions: "SECRET-SYSTEM", Messages: []llm.Message{
		{ID: "u1", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "SECRET-QUESTION"},
			{Kind: llm.PartImage, Image: &llm.Image{MIMEType: "image/png", Data: []byte("SECRET-PIXELS")}}}},
		{ID: "a1", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "SECRET-ANSWER",
			Calls: []llm.ToolCall{{CallID: "c1", Name: "Read", Arguments: []byte(`{"path":"SECRET-PATH"}`)}}}},
		{ID: "t1", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c1", Name: "Read", Content: "SECRET-FILE"}},
	}}
}

// expectNoSecret fails when v, printed or as JSON, holds a marked secret.
func expectNoSecret(v any) {
	raw, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).NotTo(ContainSubstring("SECRET"))
	Expect(fmt.Sprintf("%+v", v)).NotTo(ContainSubstring("SECRET"))
}

var _ = Describe("PromptTap.Stream", func() {
	var (
		store    *promptStore
		next     *provider
		tap      *control.PromptTap
		detailed bool
	)
	BeforeEach(func() {
		store, next, detailed = newPromptStore(), &provider{}, false
		tap = control.NewPromptTap(next, store)
		tap.DetailedWith(func() bool { return detailed })
	})

	It("keeps only the shape of a call's request while detailed mode is off: none of its text, tool output or image", func() {
		before := time.Now()
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "c1", Request: secretRequest()})
		Expect(store.puts).To(HaveKey("c1"))
		kept := store.puts["c1"]
		Expect(kept.Request).To(BeNil())
		Expect(kept.Shape).To(Equal(new(prefix.ShapeOf(secretRequest()))))
		Expect(kept.At).To(BeTemporally(">=", before))
		expectNoSecret(kept)
		Expect(next.calls).To(Equal([]string{"c1"}))
	})

	It("keeps the whole request while detailed mode is on, reading the setting on every call", func() {
		detailed = true
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "c1", Request: secretRequest()})
		detailed = false
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "c2", Request: secretRequest()})
		Expect(store.puts["c1"].Request).To(Equal(new(secretRequest())))
		Expect(store.puts["c1"].Shape).To(BeNil())
		Expect(store.puts["c2"].Request).To(BeNil())
		Expect(store.puts["c2"].Shape).NotTo(BeNil())
	})

	It("keeps shapes only when it was never told about detailed mode", func() {
		bare := control.NewPromptTap(next, store)
		_, _ = bare.Stream(context.Background(), ports.ModelCall{CallID: "c1", Request: secretRequest()})
		Expect(store.puts["c1"].Request).To(BeNil())
		expectNoSecret(store.puts["c1"])
	})

	It("still makes the call when the prompt cannot be kept", func() {
		store.fail = errors.New("full")
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "c1"})
		Expect(next.calls).To(Equal([]string{"c1"}))
	})

	It("keeps the prompt of a call whose context is already cancelled", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _ = tap.Stream(ctx, ports.ModelCall{CallID: "c1"})
		Expect(store.puts).To(HaveKey("c1"))
	})

	It("keeps no prompt of a Tab prediction, which belongs to no conversation", func() {
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "tab:r1", Kind: callrecord.KindTab, Request: secretRequest()})
		Expect(store.puts).NotTo(HaveKey("tab:r1"))
		Expect(next.calls).To(Equal([]string{"tab:r1"}), "the call itself is made")
	})
})

// calls is an in-memory call lister and reader of one conversation.
type calls struct{ recs []callrecord.Record }

func (c *calls) CallRecords(_ context.Context, q ports.CallQuery) ([]callrecord.Record, error) {
	var out []callrecord.Record
	for _, r := range slices.Backward(c.recs) {
		if q.After != nil && !r.Timing.RequestStarted.Before(q.After.Started) {
			continue
		}
		out = append(out, r)
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

func (c *calls) CallRecord(_ context.Context, id string) (callrecord.Record, error) {
	for _, r := range c.recs {
		if r.CallID == id {
			return r, nil
		}
	}
	return callrecord.Record{}, ports.ErrNotFound
}

func (c *calls) CallDetail(context.Context, string) (callrecord.Request, []callrecord.Chunk, error) {
	return callrecord.Request{}, nil, ports.ErrNotFound
}

var _ = Describe("Cache insight", func() {
	var (
		store *promptStore
		recs  *calls
		uc    *control.Calls
		t0    time.Time
	)
	BeforeEach(func() {
		store, recs, t0 = newPromptStore(), &calls{}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		uc = control.NewCalls(control.CallsOptions{Lister: recs, Reader: recs, Prompts: store})
	})
	// keep records call id as the next call of the conversation, its
	// prompt kept whole (detailed) or as a shape.
	keep := func(id string, req llm.Request, whole bool) {
		recs.recs = append(recs.recs, callrecord.Record{CallID: id, ConversationID: "conv",
			Timing: callrecord.Timing{RequestStarted: t0.Add(time.Duration(len(recs.recs)) * time.Minute)}})
		sp := ports.StoredPrompt{At: t0}
		if whole {
			sp.Request = &req
		} else {
			sp.Shape = new(prefix.ShapeOf(req))
		}
		Expect(store.PutPrompt(context.Background(), id, sp)).To(Succeed())
	}
	insight := func(id string) control.Insight {
		d, err := uc.Get(context.Background(), id)
		Expect(err).NotTo(HaveOccurred())
		return d.Insight
	}
	edited := func() llm.Request {
		r := secretRequest()
		r.Messages = slices.Clone(r.Messages)
		r.Messages[1].Assistant = &llm.Assistant{Text: "SECRET-EDITED", Calls: r.Messages[1].Assistant.Calls}
		return r
	}
	longer := func() llm.Request {
		r := secretRequest()
		r.Messages = append(slices.Clone(r.Messages), llm.Message{ID: "u2", Role: llm.RoleUser,
			Parts: []llm.Part{{Kind: llm.PartText, Text: "SECRET-FOLLOW-UP " + strings.Repeat("x", 400)}}})
		return r
	}

	DescribeTable("names the field and message where the prompt diverged, and none of their text",
		func(previousWhole, nextWhole bool) {
			keep("k1", secretRequest(), previousWhole)
			keep("k2", edited(), nextWhole)
			in := insight("k2")
			Expect(in.State).To(Equal(control.InsightBroken))
			Expect(in.PreviousCallID).To(Equal("k1"))
			Expect(in.Divergence.Field).To(Equal("messages[1].assistant.text"))
			Expect(in.Divergence.MessageID).To(Equal("a1"))
			Expect(in.Common).To(Equal(1))
			Expect(in.Explanation).To(ContainSubstring("broken at messages[1].assistant.text"))
			expectNoSecret(in)
		},
		Entry("from shapes (detailed mode off)", false, false),
		Entry("from whole requests (detailed mode on)", true, true),
		Entry("from a shape and a later whole request (detailed mode turned on)", false, true),
		Entry("from a whole request and a later shape (detailed mode turned off)", true, false),
	)

	DescribeTable("calls a prompt that extends the previous one stable, with the reusable share of its tokens",
		func(whole bool) {
			keep("k1", secretRequest(), whole)
			keep("k2", longer(), whole)
			in := insight("k2")
			Expect(in.State).To(Equal(control.InsightStable))
			Expect(in.Common).To(Equal(3))
			Expect(in.Messages).To(Equal(4))
			Expect(in.PromptTokens).To(BeNumerically("~", llm.EstimateRequest(longer()), 5))
			Expect(in.PrefixTokens).To(BeNumerically("~", llm.EstimateRequest(secretRequest()), 5))
			Expect(in.PrefixTokens).To(BeNumerically("<", in.PromptTokens))
		},
		Entry("from shapes", false),
		Entry("from whole requests", true),
	)

	Describe("the causes it names", func() {
		// turn is the first call of a user turn: a request with the given
		// mode and model, after previous's messages and the answer, with
		// request-context messages of channels appended before the user's.
		base := func(mode string) llm.Request {
			r := secretRequest()
			r.PromptName = mode
			return r
		}
		turn := func(previous llm.Request, mode, model string, channels ...conversation.ContextChannel) llm.Request {
			r := previous
			r.PromptName, r.Model = mode, model
			r.Messages = append(slices.Clone(previous.Messages), llm.Message{ID: "r2:assistant:0", Role: llm.RoleAssistant,
				Assistant: &llm.Assistant{Text: "SECRET-ANSWER"}})
			for _, ch := range channels {
				r.Messages = append(r.Messages, llm.Message{ID: conversation.ContextID(ch, "e2"), Role: llm.RoleUser,
					Parts: []llm.Part{{Kind: llm.PartText, Text: "SECRET-CONTEXT"}}})
			}
			r.Messages = append(r.Messages, llm.Message{ID: conversation.RuntimeID("e2"), Role: llm.RoleUser,
				Parts: []llm.Part{{Kind: llm.PartText, Text: "SECRET-NEXT"}}})
			return r
		}
		model := secretRequest().Model

		DescribeTable("on the call that broke, or on a stable call for what it appended",
			func(next func(llm.Request) llm.Request, state control.InsightState, causes []control.InsightCause, sentence string) {
				for _, whole := range []bool{false, true} {
					recs.recs = nil
					previous := base("agent")
					keep("k1", previous, whole)
					keep("k2", next(previous), whole)
					in := insight("k2")
					Expect(in.State).To(Equal(state))
					Expect(in.Causes).To(Equal(causes))
					Expect(in.Explanation).To(ContainSubstring(sentence))
					expectNoSecret(in)
				}
			},
			Entry("a mode switch breaks at the tools", func(p llm.Request) llm.Request {
				n := turn(p, "plan", model, conversation.ContextMode)
				n.Tools = append(slices.Clone(n.Tools), llm.Tool{Name: "CreatePlan"})
				return n
			}, control.InsightBroken, []control.InsightCause{control.CauseModeSwitch}, "Cause: mode switch (agent to plan)"),
			Entry("a model switch breaks before any message", func(p llm.Request) llm.Request {
				return turn(p, "agent", "another-model")
			}, control.InsightBroken, []control.InsightCause{control.CauseModelSwitch}, "Cause: model switch"),
			Entry("an MCP change appends without a break", func(p llm.Request) llm.Request {
				return turn(p, "agent", model, conversation.ContextMCP)
			}, control.InsightStable, []control.InsightCause{control.CauseMCPChange}, "without a break: MCP change"),
			Entry("a change of the open files appends without a break", func(p llm.Request) llm.Request {
				return turn(p, "agent", model, conversation.ContextEditor)
			}, control.InsightStable, []control.InsightCause{control.CauseContextChange}, "without a break: context change"),
			Entry("a turn that changes nothing names nothing", func(p llm.Request) llm.Request {
				return turn(p, "agent", model)
			}, control.InsightStable, []control.InsightCause(nil), "stable"),
		)

		It("names a cause each way", func() {
			Expect([]string{control.CauseModeSwitch.String(), control.CauseModelSwitch.String(), control.CauseMCPChange.String(),
				control.CauseContextChange.String()}).To(Equal([]string{"mode switch", "model switch", "MCP change", "context change"}))
		})
	})

	It("says unknown rather than compare a shape kept by a Keygate with another layout", func() {
		keep("k1", secretRequest(), false)
		keep("k2", longer(), false)
		old := store.puts["k1"]
		old.Shape = new(*old.Shape)
		old.Shape.Layout = prefix.ShapeLayout + 1
		store.puts["k1"] = old
		Expect(insight("k2").State).To(Equal(control.InsightUnknown))
	})
})

// settingStore is an in-memory ports.SettingStore.
type settingStore map[string]json.RawMessage

func (s settingStore) Setting(_ context.Context, name string) (json.RawMessage, error) {
	if v, ok := s[name]; ok {
		return v, nil
	}
	return nil, ports.ErrNotFound
}

func (s settingStore) PutSetting(_ context.Context, name string, v json.RawMessage) error {
	s[name] = v
	return nil
}

func (s settingStore) DeleteSetting(_ context.Context, name string) error {
	delete(s, name)
	return nil
}

// fatePurger is a SuggestionFatePurger that deletes three fates and keeps
// the cutoff it was asked for.
type fatePurger struct{ cutoff time.Time }

func (f *fatePurger) PurgeFates(_ context.Context, cutoff time.Time) (int, error) {
	f.cutoff = cutoff
	return 3, nil
}

// noDetails is a DetailPurger with nothing to purge.
type noDetails struct{}

func (noDetails) PurgeDetails(context.Context, time.Time) (int, error) { return 0, nil }

var _ = Describe("Retention.Sweep of kept prompts", func() {
	var (
		store    *promptStore
		settings *control.Settings
		r        *control.Retention
		now      time.Time
	)
	BeforeEach(func() {
		ctx := context.Background()
		store, now = newPromptStore(), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		settings = control.NewSettings(settingStore{})
		_, err := settings.Load(ctx)
		Expect(err).NotTo(HaveOccurred())
		r = control.NewRetention(settings, noDetails{}, func() time.Time { return now })
		r.PurgePromptsWith(store)
		shape := prefix.ShapeOf(secretRequest())
		req := secretRequest()
		for id, sp := range map[string]ports.StoredPrompt{
			"old-whole": {At: now.Add(-48 * time.Hour), Request: &req},
			"old-shape": {At: now.Add(-25 * time.Hour), Shape: &shape},
			"young":     {At: now.Add(-time.Hour), Shape: &shape},
		} {
			Expect(store.PutPrompt(ctx, id, sp)).To(Succeed())
		}
	})

	It("deletes the prompts, whole and shaped, of calls older than the retention age", func() {
		_, err := settings.Update(context.Background(), control.ServiceSettings{RetentionHours: 24})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Sweep(context.Background())).To(Equal(2))
		Expect(store.puts).To(HaveLen(1))
		Expect(store.puts).To(HaveKey("young"))
	})

	It("deletes the fates of Tab suggestions recorded before the retention age too", func() {
		fates := &fatePurger{}
		r.PurgeFatesWith(fates)
		_, err := settings.Update(context.Background(), control.ServiceSettings{RetentionHours: 24})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Sweep(context.Background())).To(Equal(2 + 3))
		Expect(fates.cutoff).To(Equal(now.Add(-24 * time.Hour)))
	})

	It("keeps every prompt while retention is 0", func() {
		Expect(r.Sweep(context.Background())).To(BeZero())
		Expect(store.puts).To(HaveLen(3))
	})
})
