package control_test

import (
	"context"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("Aliases", func() {
	var (
		a      *api
		ctx    context.Context
		east   *controlv1.Model
		west   *controlv1.Model
		create func(targets ...*controlv1.AliasTarget) (*controlv1.Alias, error)
	)
	BeforeEach(func() {
		a, ctx = newAPI(), context.Background()
		east, west = a.create("sonnet-east", "sk-east-0123456789abcd"), a.create("sonnet-west", "sk-west-0123456789abcd")
		create = func(targets ...*controlv1.AliasTarget) (*controlv1.Alias, error) {
			resp, err := a.aliases.CreateAlias(ctx, connect.NewRequest(&controlv1.CreateAliasRequest{Enabled: true,
				Settings: &controlv1.AliasSettings{DisplayName: "Sonnet", FirstTokenTimeoutMs: 20_000, Targets: targets}}))
			if err != nil {
				return nil, err
			}
			return resp.Msg.GetAlias(), nil
		}
	})

	It("routes over its targets in order, each shown with its model, provider and health, and is published to Cursor after the models", func() {
		al, err := create(&controlv1.AliasTarget{ModelId: east.GetId()}, &controlv1.AliasTarget{ModelId: west.GetId(), Weight: 2})
		Expect(err).NotTo(HaveOccurred())
		Expect(al.GetId()).NotTo(BeElementOf(east.GetId(), west.GetId()))
		Expect(al.GetSettings().GetStrategy()).To(Equal(controlv1.TargetStrategy_TARGET_STRATEGY_ORDERED))
		Expect(al.GetSettings().GetTargets()[0].GetWeight()).To(Equal(int32(1)), "0 means 1")
		Expect(al.GetTargets()[1].GetDisplayName()).To(Equal("Fake sonnet-west"))
		Expect(al.GetTargets()[1].GetProviderName()).NotTo(BeEmpty())
		Expect(al.GetTargets()[1].GetHealth().GetState()).To(Equal(controlv1.HealthState_HEALTH_STATE_HEALTHY))

		published, err := a.published.Published(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(published).To(HaveLen(3))
		Expect(published[2].ID).To(Equal(al.GetId()))
		Expect(published[2].DisplayName).To(Equal("Sonnet"))
		Expect(published[2].ModelID).To(Equal("sonnet-east"), "shown with its first target's configuration")
		Expect(a.published.Serves(ctx, al.GetId())).To(BeTrue())

		_, err = a.aliases.SetAliasEnabled(ctx, connect.NewRequest(&controlv1.SetAliasEnabledRequest{Id: al.GetId()}))
		Expect(err).NotTo(HaveOccurred())
		Expect(a.published.Serves(ctx, al.GetId())).To(BeFalse())
	})

	It("reorders its targets and drains one, which shows as out of service", func() {
		al, err := create(&controlv1.AliasTarget{ModelId: east.GetId()}, &controlv1.AliasTarget{ModelId: west.GetId()})
		Expect(err).NotTo(HaveOccurred())
		s := al.GetSettings()
		s.Targets = []*controlv1.AliasTarget{s.GetTargets()[1], s.GetTargets()[0]}
		up, err := a.aliases.UpdateAlias(ctx, connect.NewRequest(&controlv1.UpdateAliasRequest{Id: al.GetId(), Settings: s}))
		Expect(err).NotTo(HaveOccurred())
		Expect(up.Msg.GetAlias().GetSettings().GetTargets()[0].GetModelId()).To(Equal(west.GetId()))

		drained, err := a.aliases.DrainAliasTarget(ctx, connect.NewRequest(&controlv1.DrainAliasTargetRequest{Id: al.GetId(),
			ModelId: west.GetId(), Drained: true}))
		Expect(err).NotTo(HaveOccurred())
		Expect(drained.Msg.GetAlias().GetTargets()[0].GetTarget().GetDrained()).To(BeTrue())
		Expect(drained.Msg.GetAlias().GetTargets()[0].GetHealth().GetState()).To(Equal(controlv1.HealthState_HEALTH_STATE_DISABLED))
		published, err := a.published.Published(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(published[2].ModelID).To(Equal("sonnet-east"), "shown with its first target still in service")

		_, err = a.aliases.DrainAliasTarget(ctx, connect.NewRequest(&controlv1.DrainAliasTargetRequest{Id: al.GetId(), ModelId: "nope", Drained: true}))
		Expect(err).To(HaveConnectCode(connect.CodeNotFound))
	})

	DescribeTable("refuses an alias that cannot route",
		func(targets func() []*controlv1.AliasTarget, field string) {
			_, err := create(targets()...)
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring(field))
		},
		Entry("without targets", func() []*controlv1.AliasTarget { return nil }, "at least one target"),
		Entry("naming an unknown model", func() []*controlv1.AliasTarget { return []*controlv1.AliasTarget{{ModelId: "nope"}} }, "names no configured model"),
		Entry("naming a model twice", func() []*controlv1.AliasTarget {
			return []*controlv1.AliasTarget{{ModelId: east.GetId()}, {ModelId: east.GetId()}}
		}, "each model once"),
	)

	It("keeps a model an alias routes to from being deleted", func() {
		_, err := create(&controlv1.AliasTarget{ModelId: east.GetId()})
		Expect(err).NotTo(HaveOccurred())
		_, err = a.models.DeleteModel(ctx, connect.NewRequest(&controlv1.DeleteModelRequest{Id: east.GetId()}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		Expect(err.Error()).To(ContainSubstring("Sonnet"))
	})
})
