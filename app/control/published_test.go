package control_test

import (
	"context"
	"errors"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
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
		models = control.NewPublishing(store, nil)
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
})
