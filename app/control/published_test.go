package control_test

import (
	"context"
	"errors"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/domain/llm"
	"keygate/ports"
)

// modelConfigs is a model configuration store in memory, in the order
// given; broken fails every read.
type modelConfigs struct {
	cfgs   []ports.ModelConfig
	broken error
}

func (s *modelConfigs) ModelConfigs(context.Context) ([]ports.ModelConfig, error) {
	return slices.Clone(s.cfgs), s.broken
}

func (s *modelConfigs) ModelConfig(_ context.Context, id string) (ports.ModelConfig, error) {
	if s.broken != nil {
		return ports.ModelConfig{}, s.broken
	}
	for _, c := range s.cfgs {
		if c.ID == id {
			return c, nil
		}
	}
	return ports.ModelConfig{}, ports.ErrNotFound
}

func (s *modelConfigs) PutModelConfig(context.Context, ports.ModelConfig) error {
	return errors.ErrUnsupported
}
func (s *modelConfigs) DeleteModelConfig(context.Context, string) error { return errors.ErrUnsupported }

// protocolList is a fixed ports.ProviderProtocols whose request URL is the
// base itself.
type protocolList []ports.ProviderProtocol

func (l protocolList) Protocols() []ports.ProviderProtocol { return l }
func (l protocolList) RequestURL(_ llm.ProviderKind, base, _ string, _ bool) (string, error) {
	return base, nil
}

// protocols are a conversation protocol and a fill-in-the-middle one.
var protocols = protocolList{{Kind: "chat", Name: "Chat", Title: "Chat"}, {Kind: "fim", Name: "FIM", Title: "FIM", FillIn: true}}

// aliasList is an alias store in memory.
type aliasList []ports.Alias

func (l aliasList) Aliases(context.Context) ([]ports.Alias, error) { return slices.Clone(l), nil }
func (l aliasList) Alias(_ context.Context, id string) (ports.Alias, error) {
	for _, a := range l {
		if a.ID == id {
			return a, nil
		}
	}
	return ports.Alias{}, ports.ErrNotFound
}
func (l aliasList) PutAlias(context.Context, ports.Alias) error { return errors.ErrUnsupported }
func (l aliasList) DeleteAlias(context.Context, string) error   { return errors.ErrUnsupported }

var _ = Describe("Models offered to Cursor", func() {
	var (
		store  *modelConfigs
		models *control.Publishing
		ctx    = context.Background()
	)
	BeforeEach(func() {
		store = &modelConfigs{cfgs: []ports.ModelConfig{
			{ID: "m-first", Enabled: true}, {ID: "m-off"}, {ID: "m-second", Enabled: true},
		}}
		models = control.NewPublishing(store, nil, protocols)
	})

	It("publishes the enabled models in publishing order", func() {
		published, err := models.Published(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(published).To(HaveExactElements(
			HaveField("ID", "m-first"), HaveField("ID", "m-second")))
	})

	It("reports a store that cannot list its models", func() {
		store.broken = errors.New("disk gone")
		_, err := models.Published(ctx)
		Expect(err).To(MatchError(ContainSubstring("disk gone")))
	})

	DescribeTable("serves the turns of a model id",
		func(id string, broken error, serves bool) {
			store.broken = broken
			Expect(models.Serves(ctx, id)).To(Equal(serves))
		},
		Entry("an enabled model: Keygate", "m-first", nil, true),
		Entry("a disabled model: Cursor", "m-off", nil, false),
		Entry("an unknown id (one of Cursor's models): Cursor", "claude-4-sonnet", nil, false),
		Entry("any id while the store fails: Keygate, whose run layer reports the error", "m-off", errors.New("disk gone"), true),
	)

	Describe("a fill-in-the-middle model (Cursor Tab's)", func() {
		BeforeEach(func() {
			store.cfgs = []ports.ModelConfig{
				{ID: "m-chat", Enabled: true, ProviderKind: "chat"},
				{ID: "m-tab", Enabled: true, ProviderKind: "fim", DisplayName: "Codestral"},
			}
		})

		It("is not in the picker, nor an alias shown with one, since it cannot run the Agent", func() {
			models = control.NewPublishing(store, aliasList{
				{ID: "a-tab", Enabled: true, Targets: []ports.AliasTarget{{ModelID: "m-tab"}}},
				{ID: "a-chat", Enabled: true, Targets: []ports.AliasTarget{{ModelID: "m-chat"}}},
			}, protocols)
			published, err := models.Published(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(published).To(HaveExactElements(HaveField("ID", "m-chat"), HaveField("ID", "a-chat")))
		})

		It("is still served by Keygate, whose catalog refuses its turn with a clear error instead of Cursor not knowing the id", func() {
			Expect(models.Serves(ctx, "m-tab")).To(BeTrue())
			catalog := control.NewCatalog(control.CatalogOptions{Models: store, Protocols: protocols})
			_, _, err := catalog.Endpoint(ctx, "m-tab")
			Expect(err).To(MatchError(ports.ErrFillInModel))
			Expect(err.Error()).To(ContainSubstring("Codestral"))
			Expect(err.Error()).To(ContainSubstring("choose a chat model"))
			ep, _, err := catalog.Endpoint(ctx, "m-chat")
			Expect(err).NotTo(HaveOccurred())
			Expect(ep.Route).To(Equal("m-chat"))
		})
	})
})
