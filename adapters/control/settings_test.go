package control_test

import (
	"context"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appcontrol "keygate/app/control"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("SettingService", func() {
	var (
		a   *api
		ctx context.Context
	)
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
	})

	It("starts with detailed mode off and keeps what was saved", func() {
		got, err := a.setting.GetSettings(ctx, connect.NewRequest(&controlv1.GetSettingsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Msg.GetSettings().GetDetailedMode()).To(BeFalse())
		_, err = a.setting.UpdateSettings(ctx, connect.NewRequest(&controlv1.UpdateSettingsRequest{Settings: &controlv1.Settings{
			DetailedMode: true, DetailedRetentionHours: 48}}))
		Expect(err).NotTo(HaveOccurred())
		got, err = a.setting.GetSettings(ctx, connect.NewRequest(&controlv1.GetSettingsRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Msg.GetSettings().GetDetailedRetentionHours()).To(Equal(int32(48)))
		Expect(a.settings.Detailed()).To(BeTrue())
	})

	It("keeps the saved prices at hand for per-call lookups, and a fresh Load reads them back", func() {
		_, ok := a.settings.PriceOf("gpt-a")
		Expect(ok).To(BeFalse())
		_, err := a.setting.UpdateSettings(ctx, connect.NewRequest(&controlv1.UpdateSettingsRequest{Settings: &controlv1.Settings{
			Prices: []*controlv1.ModelPrice{{ModelId: "gpt-a", InputPerMillion: 2, OutputPerMillion: 8}}}}))
		Expect(err).NotTo(HaveOccurred())
		p, ok := a.settings.PriceOf("gpt-a")
		Expect(ok).To(BeTrue())
		Expect([]float64{p.Input, p.Output}).To(Equal([]float64{2, 8}))
		_, ok = a.settings.PriceOf("claude-b")
		Expect(ok).To(BeFalse())

		fresh := appcontrol.NewSettings(a.store)
		_, err = fresh.Load(ctx)
		Expect(err).NotTo(HaveOccurred())
		again, ok := fresh.PriceOf("gpt-a")
		Expect(ok).To(BeTrue())
		Expect(again).To(Equal(p))
	})

	DescribeTable("refuses settings that make no sense",
		func(s *controlv1.Settings) {
			_, err := a.setting.UpdateSettings(ctx, connect.NewRequest(&controlv1.UpdateSettingsRequest{Settings: s}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		},
		Entry("a negative retention is refused", &controlv1.Settings{DetailedRetentionHours: -1}),
		Entry("a price without a model is refused", &controlv1.Settings{Prices: []*controlv1.ModelPrice{{InputPerMillion: 1}}}),
		Entry("a model priced twice is refused", &controlv1.Settings{Prices: []*controlv1.ModelPrice{{ModelId: "m"}, {ModelId: "m"}}}),
		Entry("a negative price is refused", &controlv1.Settings{Prices: []*controlv1.ModelPrice{{ModelId: "m", OutputPerMillion: -1}}}),
	)
})

var _ = Describe("Retention.Sweep", func() {
	var (
		a   *api
		ctx context.Context
		now time.Time
		r   *appcontrol.Retention
	)
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
		now = at.Add(100 * time.Hour)
		r = appcontrol.NewRetention(a.settings, a.store, func() time.Time { return now })
		for id, started := range map[string]time.Time{"old": at, "young": now.Add(-time.Hour)} {
			a.record(id, "gpt-a", callrecord.StatusCompleted, started, &llm.Usage{Input: 1})
			Expect(a.store.Request(ctx, id, callrecord.Request{Method: "POST", Body: []byte("{}")})).To(Succeed())
		}
	})
	hasDetail := func(id string) bool {
		_, _, err := a.store.CallDetail(ctx, id)
		return err == nil
	}

	It("deletes the details of calls older than the retention and keeps the records", func() {
		a.setDetailedRetention(24)
		Expect(r.Sweep(ctx)).To(Equal(1))
		Expect(hasDetail("old")).To(BeFalse())
		Expect(hasDetail("young")).To(BeTrue())
		_, err := a.store.CallRecord(ctx, "old")
		Expect(err).NotTo(HaveOccurred())
	})

	It("keeps every detail while retention is 0", func() {
		Expect(r.Sweep(ctx)).To(BeZero())
		Expect(hasDetail("old")).To(BeTrue())
	})
})

func (a *api) setDetailedRetention(hours int32) {
	_, err := a.setting.UpdateSettings(context.Background(), connect.NewRequest(&controlv1.UpdateSettingsRequest{
		Settings: &controlv1.Settings{DetailedMode: true, DetailedRetentionHours: hours}}))
	Expect(err).NotTo(HaveOccurred())
}
