package control_test

import (
	"context"
	"errors"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/ports"
)

// mappingMap is a model mapping store in memory; broken fails every read.
type mappingMap struct {
	m      map[string]string
	broken error
}

func (s *mappingMap) ModelMappings(context.Context) ([]ports.ModelMapping, error) {
	var out []ports.ModelMapping
	for k, v := range s.m {
		out = append(out, ports.ModelMapping{CursorModel: k, Target: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CursorModel < out[j].CursorModel })
	return out, s.broken
}

func (s *mappingMap) ModelMapping(_ context.Context, id string) (ports.ModelMapping, error) {
	if s.broken != nil {
		return ports.ModelMapping{}, s.broken
	}
	t, ok := s.m[id]
	if !ok {
		return ports.ModelMapping{}, ports.ErrNotFound
	}
	return ports.ModelMapping{CursorModel: id, Target: t}, nil
}

func (s *mappingMap) PutModelMapping(_ context.Context, m ports.ModelMapping) error {
	s.m[m.CursorModel] = m.Target
	return nil
}

func (s *mappingMap) DeleteModelMapping(_ context.Context, id string) error {
	if _, ok := s.m[id]; !ok {
		return ports.ErrNotFound
	}
	delete(s.m, id)
	return nil
}

var _ = Describe("Cursor's model ids mapped onto Keygate models", func() {
	var (
		store    *modelConfigs
		aliases  aliasList
		mappings *mappingMap
		pb       *control.Publishing
		catalog  *control.Catalog
		ctx      = context.Background()
	)
	BeforeEach(func() {
		store = &modelConfigs{cfgs: []ports.ModelConfig{
			{ID: "m-team", DisplayName: "Team GPT", Enabled: true, ProviderKind: "chat", BaseURL: "http://team", ModelID: "gpt-5.5"},
			{ID: "m-off", DisplayName: "Off", ProviderKind: "chat"},
		}}
		aliases = aliasList{{ID: "a-fast", DisplayName: "Fast", Enabled: true, Targets: []ports.AliasTarget{{ModelID: "m-team"}}}}
		mappings = &mappingMap{m: map[string]string{"gpt-5": "m-team", "auto": "a-fast", "default": "m-off"}}
		pb = control.NewPublishing(store, aliases, protocols)
		pb.MapWith(mappings)
		catalog = control.NewCatalog(control.CatalogOptions{Models: store, Aliases: aliases, Protocols: protocols, Mappings: mappings})
	})

	DescribeTable("routes a turn to Keygate or Cursor in Publishing.Serves",
		func(id string, serves bool) { Expect(pb.Serves(ctx, id)).To(Equal(serves)) },
		Entry("a Cursor id mapped onto an enabled model: Keygate", "gpt-5", true),
		Entry("a Cursor id mapped onto an enabled alias: Keygate", "auto", true),
		Entry("a Cursor id mapped onto a disabled model: Cursor", "default", false),
		Entry("an unmapped Cursor id: Cursor", "claude-4-sonnet", false),
	)

	It("resolves a mapped id to its model, the route naming the Cursor id and the target the Keygate model", func() {
		ep, cfg, err := catalog.Endpoint(ctx, "gpt-5")
		Expect(err).NotTo(HaveOccurred())
		Expect(ep.Route).To(Equal("gpt-5"))
		Expect(cfg.ID).To(Equal("m-team"))
		Expect(cfg.ModelID).To(Equal("gpt-5.5"))
		r, err := catalog.Route(ctx, "gpt-5")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.ID).To(Equal("gpt-5"))
		Expect(r.Targets).To(HaveExactElements(HaveField("ModelID", "m-team")))
	})

	It("resolves a mapped id to an alias's route", func() {
		ep, cfg, err := catalog.Endpoint(ctx, "auto")
		Expect(err).NotTo(HaveOccurred())
		Expect(ep.Route).To(Equal("auto"))
		Expect(cfg.DisplayName).To(Equal("Fast"))
		r, err := catalog.Route(ctx, "auto")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Alias).To(BeTrue())
	})

	It("leaves an unmapped id unknown, and reports a mapping store that fails", func() {
		_, _, err := catalog.Endpoint(ctx, "claude-4-sonnet")
		Expect(err).To(MatchError(ports.ErrNotFound))
		mappings.broken = errors.New("disk gone")
		_, err = catalog.Route(ctx, "gpt-5")
		Expect(err).To(MatchError(ContainSubstring("disk gone")))
		Expect(pb.Serves(ctx, "gpt-5")).To(BeTrue(), "Keygate's run layer reports the error")
	})

	It("names the Keygate model each published mapping runs on, for the picker", func() {
		names, err := pb.Mapped(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(names).To(Equal(map[string]string{"gpt-5": "Team GPT", "auto": "Fast"}))
	})

	Describe("the console's mappings", func() {
		var m *control.Mappings
		BeforeEach(func() { m = control.NewMappings(mappings, store, aliases) })

		It("maps any Cursor id onto a model or alias, and refuses an unknown target or a Keygate id", func() {
			got, err := m.Set(ctx, " composer-1 ", "a-fast")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.CursorModel).To(Equal("composer-1"))
			Expect(got.Target).To(Equal("a-fast"))
			var inv *control.InvalidError
			_, err = m.Set(ctx, "o3", "nope")
			Expect(errors.As(err, &inv)).To(BeTrue())
			Expect(inv.Field).To(Equal("target"))
			_, err = m.Set(ctx, "m-team", "a-fast")
			Expect(errors.As(err, &inv)).To(BeTrue())
			Expect(inv.Field).To(Equal("cursor_model"))
			_, err = m.Set(ctx, "", "a-fast")
			Expect(errors.As(err, &inv)).To(BeTrue())
			Expect(m.Delete(ctx, "composer-1")).To(Succeed())
			Expect(m.Delete(ctx, "composer-1")).To(MatchError(ports.ErrNotFound))
		})
	})
})
