package control_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/ports"
)

// settingsMap is a setting store in memory that counts its reads.
type settingsMap struct {
	mu    sync.Mutex
	vals  map[string]json.RawMessage
	reads int
}

func (s *settingsMap) Setting(_ context.Context, name string) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	v, ok := s.vals[name]
	if !ok {
		return nil, ports.ErrNotFound
	}
	return v, nil
}

func (s *settingsMap) PutSetting(_ context.Context, name string, v json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals[name] = v
	return nil
}

func (s *settingsMap) DeleteSetting(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.vals[name]; !ok {
		return ports.ErrNotFound
	}
	delete(s.vals, name)
	return nil
}

var _ = Describe("The Cursor Tab model", func() {
	var (
		ctx      = context.Background()
		settings *settingsMap
		models   *modelConfigs
		now      time.Time
		tab      func(configured string) *control.TabModel
	)
	BeforeEach(func() {
		settings = &settingsMap{vals: map[string]json.RawMessage{}}
		models = &modelConfigs{cfgs: []ports.ModelConfig{
			{ID: "m-coder", DisplayName: "Codestral", Enabled: true},
			{ID: "m-chat", DisplayName: "GPT Fast", Enabled: true},
			{ID: "m-twin-1", DisplayName: "Twin", Enabled: true},
			{ID: "m-twin-2", DisplayName: "twin", Enabled: true},
			{ID: "m-off", DisplayName: "Disabled", Enabled: false},
		}}
		now = time.Unix(1_800_000_000, 0)
		tab = func(configured string) *control.TabModel {
			return control.NewTabModel(control.TabModelOptions{Settings: settings, Models: models,
				Configured: configured, Now: func() time.Time { return now }})
		}
	})

	It("serves no Tab when neither the configuration nor the console names a model", func() {
		c, err := tab("").Choice(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c).To(Equal(control.TabChoice{}))
	})

	It("serves the configuration's model, named by display name in any case, until the console saves one", func() {
		t := tab("codestral")
		c, err := t.Choice(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c).To(Equal(control.TabChoice{ID: "m-coder", DisplayName: "Codestral", Source: "configuration"}))

		c, err = t.Set(ctx, "m-chat")
		Expect(err).NotTo(HaveOccurred())
		Expect(c).To(Equal(control.TabChoice{ID: "m-chat", DisplayName: "GPT Fast", Source: "setting"}))

		By("an empty setting turns Tab off even though the configuration names a model")
		c, err = t.Set(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(c).To(Equal(control.TabChoice{Source: "setting"}))

		By("forgetting the setting brings the configuration's model back")
		c, err = t.Reset(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ID).To(Equal("m-coder"))
	})

	DescribeTable("refuses to save a name that serves nothing, or that is ambiguous",
		func(name, reason string) {
			_, err := tab("").Set(ctx, name)
			var inv *control.InvalidError
			Expect(errors.As(err, &inv)).To(BeTrue(), "%v", err)
			Expect(inv.Field).To(Equal("tab_model"))
			Expect(inv.Reason).To(ContainSubstring(reason))
			Expect(settings.vals).To(BeEmpty(), "nothing stored")
		},
		Entry("an unknown name", "claude-9", `no enabled model or alias is named "claude-9"`),
		Entry("a disabled model", "Disabled", "no enabled model"),
		Entry("a display name two models share", "TWIN", "2 models or aliases are named"),
		Entry("a name with a line break", "Codestral\nx", "without control characters"),
	)

	It("says why a configured name serves nothing rather than failing every Tab request", func() {
		c, err := tab("no-such-model").Choice(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ID).To(BeEmpty())
		Expect(c.Source).To(Equal("configuration"))
		Expect(c.Problem).To(ContainSubstring("no-such-model"))
	})

	It("answers from memory between reads of the store, and sees another replica's change within seconds", func() {
		t := tab("")
		_, err := t.Set(ctx, "Codestral")
		Expect(err).NotTo(HaveOccurred())
		reads := settings.reads
		for range 100 {
			id, err := t.Current(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(id).To(Equal("m-coder"))
		}
		Expect(settings.reads).To(Equal(reads), "a keystroke's Tab request reads no setting")

		By("another replica saves a new model")
		other := tab("")
		_, err = other.Set(ctx, "GPT Fast")
		Expect(err).NotTo(HaveOccurred())
		id, _ := t.Current(ctx)
		Expect(id).To(Equal("m-coder"), "still within the freshness bound")
		now = now.Add(3 * time.Second)
		id, _ = t.Current(ctx)
		Expect(id).To(Equal("m-chat"))
	})

	It("reports a store that cannot be read", func() {
		models.broken = errors.New("disk gone")
		_, err := tab("Codestral").Current(ctx)
		Expect(err).To(MatchError(ContainSubstring("disk gone")))
	})
})

var _ = Describe("The inline-edit and commit models", func() {
	var (
		ctx      context.Context
		settings *settingsMap
		models   *modelConfigs
		calls    *callList
		pb       *control.Publishing
	)
	BeforeEach(func() {
		ctx = identity.NewContext(context.Background(), identity.Identity{UserID: "u-1"})
		settings = &settingsMap{vals: map[string]json.RawMessage{}}
		models = &modelConfigs{cfgs: []ports.ModelConfig{
			{ID: "m-first", DisplayName: "First", Enabled: true},
			{ID: "m-opus", DisplayName: "Opus", Enabled: true},
			{ID: "m-gone", DisplayName: "Gone", Enabled: false},
		}}
		calls = &callList{}
		pb = control.NewPublishing(models, nil, nil)
	})
	feature := func(f control.Feature, configured string, def func(context.Context) (string, error)) *control.FeatureModel {
		return control.NewFeatureModel(control.FeatureModelOptions{Feature: f, Settings: settings, Models: models,
			Configured: configured, Default: def})
	}

	It("keeps each feature's setting apart", func() {
		edit, commit := feature(control.FeatureEdit, "", nil), feature(control.FeatureCommit, "", nil)
		_, err := edit.Set(ctx, "Opus")
		Expect(err).NotTo(HaveOccurred())
		Expect(settings.vals).To(HaveKey("cmdk_model"))
		id, err := commit.Current(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(id).To(BeEmpty())
		_, err = commit.Set(ctx, "nope")
		var inv *control.InvalidError
		Expect(errors.As(err, &inv)).To(BeTrue())
		Expect(inv.Field).To(Equal("commit_model"))
	})

	It("serves inline edits on the first published model until the setting or configuration names one", func() {
		edit := feature(control.FeatureEdit, "", control.FirstPublished(pb))
		Expect(edit.Current(ctx)).To(Equal("m-first"))
		edit = feature(control.FeatureEdit, "Opus", control.FirstPublished(pb))
		Expect(edit.Current(ctx)).To(Equal("m-opus"))

		By("an empty setting turns the feature off, default or not")
		_, err := edit.Set(ctx, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(edit.Current(ctx)).To(BeEmpty())
	})

	It("serves commit messages on the caller's last Agent model while it is published, else the first", func() {
		commit := feature(control.FeatureCommit, "", control.LastAgentModel(calls, pb))
		Expect(commit.Current(ctx)).To(Equal("m-first"), "no Agent call yet")

		calls.recs = []callrecord.Record{{Kind: callrecord.KindAgent, UserID: "u-1", Route: callrecord.Route{ID: "m-opus"}}}
		Expect(commit.Current(ctx)).To(Equal("m-opus"))
		Expect(calls.q).To(Equal(ports.CallQuery{UserID: "u-1", Kind: callrecord.KindAgent, Limit: 1}))

		calls.recs[0].Route.ID = "m-gone"
		Expect(commit.Current(ctx)).To(Equal("m-first"), "the last model is no longer published")

		models.cfgs = nil
		Expect(commit.Current(ctx)).To(BeEmpty(), "nothing published: Cursor serves it")
	})
})
