package gateway_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/gateway"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/ports"
)

type published []ports.ModelConfig

func (p published) Published(context.Context) ([]ports.ModelConfig, error) { return p, nil }

type endpoints map[string]ports.ModelConfig

func (e endpoints) Endpoint(_ context.Context, id string) (ports.Endpoint, ports.ModelConfig, error) {
	return ports.Endpoint{Route: id}, e[id], nil
}

type recorder struct{ calls []ports.ModelCall }

func (r *recorder) Stream(_ context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	r.calls = append(r.calls, call)
	return nil, nil
}

var _ = Describe("The gateway use case", func() {
	var (
		rec *recorder
		svc *gateway.Service
		ada context.Context
	)
	BeforeEach(func() {
		cfgs := []ports.ModelConfig{
			{ID: "m-1", DisplayName: "Claude Sonnet", ModelID: "claude-sonnet-4-5", MaxOutputTokens: 8000},
			{ID: "m-2", DisplayName: "GPT", ModelID: "gpt-5"},
		}
		rec = &recorder{}
		svc = gateway.New(gateway.Options{Provider: rec, Published: published(cfgs),
			Endpoints: endpoints{"m-1": cfgs[0], "m-2": cfgs[1]}})
		ada = identity.NewContext(context.Background(), identity.Identity{UserID: "ada"})
	})

	It("resolves a model by id or by its display name, case aside", func() {
		m, err := svc.Resolve(ada, "claude sonnet")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.ID).To(Equal("m-1"))
		m, err = svc.Resolve(ada, "m-2")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Name).To(Equal("GPT"))
	})

	It("refuses another name, naming the available ones", func() {
		_, err := svc.Resolve(ada, "claude-sonnet-4-5")
		Expect(err).To(MatchError(gateway.ErrUnknownModel))
		Expect(err.Error()).To(ContainSubstring("available: Claude Sonnet, GPT"))
	})

	It("makes one routed call of kind api as the caller, on the target's model, within its output cap", func() {
		_, _, err := svc.Stream(ada, gateway.Call{Model: "Claude Sonnet", RequestID: "r1", Session: "s", Client: "codex",
			Request: llm.Request{Model: "Claude Sonnet", MaxOutputTokens: 128000}})
		Expect(err).NotTo(HaveOccurred())
		Expect(rec.calls).To(HaveLen(1))
		c := rec.calls[0]
		Expect(c.Kind).To(Equal(callrecord.KindAPI))
		Expect(c.Client).To(Equal("codex"))
		Expect(c.CallID).To(Equal("api:r1"))
		Expect(c.Endpoint.Route).To(Equal("m-1"))
		Expect(c.Request.Model).To(Equal("claude-sonnet-4-5"))
		Expect(c.Request.MaxOutputTokens).To(Equal(8000))
		Expect(c.Request.CacheKey).To(Equal("s"))
		Expect(c.ConversationID).To(HavePrefix("api-"))
	})

	It("refuses a call without a caller", func() {
		_, _, err := svc.Stream(context.Background(), gateway.Call{Model: "GPT"})
		Expect(err).To(MatchError(gateway.ErrNoCaller))
		Expect(rec.calls).To(BeEmpty())
	})
})
