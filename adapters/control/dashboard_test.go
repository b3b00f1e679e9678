package control_test

import (
	"context"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/types/known/timestamppb"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("DashboardService", func() {
	var (
		a    *api
		ctx  context.Context
		resp *controlv1.GetDashboardResponse
	)
	BeforeEach(func() {
		a = newAPI()
		ctx = context.Background()
		_, err := a.setting.UpdateSettings(ctx, connect.NewRequest(&controlv1.UpdateSettingsRequest{Settings: &controlv1.Settings{
			Prices: []*controlv1.ModelPrice{{ModelId: "gpt-a", InputPerMillion: 2, OutputPerMillion: 8, CacheReadPerMillion: 0.5}}}}))
		Expect(err).NotTo(HaveOccurred())
		a.recordFor("ada", "1", "gpt-a", callrecord.StatusCompleted, at, &llm.Usage{Input: 1_000_000, CacheRead: 3_000_000, Output: 500_000})
		a.recordFor("ada", "2", "gpt-a", callrecord.StatusError, at.Add(2*time.Hour), nil)
		a.recordFor("bob", "3", "claude-b", callrecord.StatusCompleted, at.Add(26*time.Hour), &llm.Usage{Input: 100, Output: 10})
		a.record("outside", "gpt-a", callrecord.StatusCompleted, at.Add(-time.Hour), &llm.Usage{Input: 7})
		r, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
			StartTime: timestamppb.New(at), EndTime: timestamppb.New(at.Add(48 * time.Hour))}))
		Expect(err).NotTo(HaveOccurred())
		resp = r.Msg
	})

	It("shows a Tab section only when the range holds Tab calls, and keeps them out of the Agent figures", func() {
		Expect(resp.GetTab()).To(BeNil())
		a.recordKind(callrecord.KindTab, "ada", "tab-1", "req-1", "fim", callrecord.StatusError, at.Add(3*time.Hour), nil)
		a.recordKind(callrecord.KindTab, "ada", "tab-2", "req-1", "fim", callrecord.StatusCompleted, at.Add(3*time.Hour+time.Second), nil)
		a.recordKind(callrecord.KindTab, "bob", "tab-3", "req-2", "fim", callrecord.StatusCompleted, at.Add(4*time.Hour), nil)
		a.recordKind(callrecord.KindTest, "", "test-1", "test", "gpt-a", callrecord.StatusCompleted, at.Add(4*time.Hour), nil)
		r, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
			StartTime: timestamppb.New(at), EndTime: timestamppb.New(at.Add(48 * time.Hour))}))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Msg.GetTotals().GetCalls()).To(Equal(resp.GetTotals().GetCalls()), "Agent figures unchanged")
		tab := r.Msg.GetTab()
		Expect(tab.GetTotals().GetRequests()).To(Equal(int64(2)))
		Expect(tab.GetTotals().GetCalls()).To(Equal(int64(3)))
		Expect(tab.GetTotals().GetP50TtftMs()).To(BeNumerically("~", 200, 1e-9))
		Expect(tab.GetPerModel()).To(HaveLen(1))
		Expect(tab.GetPerModel()[0].GetModelId()).To(Equal("fim"))
		Expect(tab.GetPerUser()).To(HaveLen(2))
		Expect(tab.GetPerUser()[0].GetUserId()).To(Equal("ada"))
		Expect(tab.GetPerUser()[0].GetAggregate().GetRequests()).To(Equal(int64(1)))
	})

	It("counts calls in the range by outcome", func() {
		t := resp.GetTotals()
		Expect([]int64{t.GetCalls(), t.GetCompleted(), t.GetFailed()}).To(Equal([]int64{3, 2, 1}))
		Expect(t.GetInputTokens()).To(Equal(int64(1_000_100)))
	})

	It("computes the cache hit rate as cache read over cache read plus fresh input", func() {
		per := map[string]*controlv1.Aggregate{}
		for _, m := range resp.GetPerModel() {
			per[m.GetModelId()] = m.GetAggregate()
		}
		Expect(per["gpt-a"].GetCacheHitRate()).To(BeNumerically("~", 0.75, 1e-9))
		Expect(per["claude-b"].GetCacheHitRate()).To(BeZero())
	})

	It("shows the cache hit rate of each target an alias routed to, routed calls only", func() {
		routed := func(id, target string, u *llm.Usage) {
			rec := callrecord.Record{CallID: id, RunID: "run", ConversationID: "conv-r", Status: callrecord.StatusRunning,
				Model: callrecord.ModelSnapshot{ModelID: "sonnet"}, Timing: callrecord.Timing{RequestStarted: at.Add(time.Hour)},
				Route: callrecord.Route{ID: "alias", Target: target, Provider: "p-" + target}}
			Expect(a.store.Start(ctx, rec)).To(Succeed())
			rec.Status, rec.Usage, rec.Timing.Finished = callrecord.StatusCompleted, u, at.Add(time.Hour+time.Second)
			Expect(a.store.Finish(ctx, rec)).To(Succeed())
		}
		routed("r1", "east", &llm.Usage{Input: 100, CacheRead: 900})
		routed("r2", "east", &llm.Usage{Input: 100, CacheRead: 900})
		routed("r3", "west", &llm.Usage{Input: 1000})
		r, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
			StartTime: timestamppb.New(at), EndTime: timestamppb.New(at.Add(48 * time.Hour))}))
		Expect(err).NotTo(HaveOccurred())
		targets := r.Msg.GetPerTarget()
		Expect(targets).To(HaveLen(2))
		Expect(targets[0].GetTargetModelId()).To(Equal("east"))
		Expect(targets[0].GetProviderId()).To(Equal("p-east"))
		Expect(targets[0].GetAggregate().GetCalls()).To(Equal(int64(2)))
		Expect(targets[0].GetAggregate().GetCacheHitRate()).To(BeNumerically("~", 0.9, 1e-9))
		Expect(targets[1].GetAggregate().GetCacheHitRate()).To(BeZero())
	})

	It("estimates cost from configured prices and counts calls it could not price", func() {
		Expect(resp.GetTotals().GetCostUsd()).To(BeNumerically("~", 2+1.5+4, 1e-9))
		Expect(resp.GetTotals().GetUnpricedCalls()).To(Equal(int64(1)))
	})

	It("buckets a two-day range by hour, with empty hours present", func() {
		Expect(resp.GetBucketSize()).To(Equal(controlv1.BucketSize_BUCKET_SIZE_HOUR))
		Expect(resp.GetSeries()).To(HaveLen(48))
		Expect(resp.GetSeries()[0].GetAggregate().GetCalls()).To(Equal(int64(1)))
		Expect(resp.GetSeries()[1].GetAggregate().GetCalls()).To(BeZero())
		Expect(resp.GetSeries()[26].GetAggregate().GetCalls()).To(Equal(int64(1)))
	})

	It("sums each user's calls, ordered by user id", func() {
		var users []string
		var calls, input []int64
		for _, u := range resp.GetPerUser() {
			users = append(users, u.GetUserId())
			calls = append(calls, u.GetAggregate().GetCalls())
			input = append(input, u.GetAggregate().GetInputTokens())
		}
		Expect(users).To(Equal([]string{"ada", "bob"}))
		Expect(calls).To(Equal([]int64{2, 1}))
		Expect(input).To(Equal([]int64{1_000_000, 100}))
	})

	It("limits everything to one user on request", func() {
		r, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
			StartTime: timestamppb.New(at), EndTime: timestamppb.New(at.Add(48 * time.Hour)), UserId: "bob"}))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Msg.GetTotals().GetCalls()).To(Equal(int64(1)))
		Expect(r.Msg.GetPerUser()).To(HaveLen(1))
		Expect(r.Msg.GetPerModel()[0].GetModelId()).To(Equal("claude-b"))
	})

	It("refuses a range that ends before it starts", func() {
		_, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
			StartTime: timestamppb.New(at), EndTime: timestamppb.New(at.Add(-time.Hour))}))
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
	})
})
