package cloudledger_test

import (
	"context"
	"errors"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/cloudledger"
	"keygate/domain/cursorcloud"
	"keygate/ports"
)

// store records each AddCloudUsage call; fail makes the next one fail.
type store struct {
	mu    sync.Mutex
	calls [][]cursorcloud.DayUsage
	fail  bool
}

func (s *store) AddCloudUsage(_ context.Context, rows []cursorcloud.DayUsage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		s.fail = false
		return errors.New("database down")
	}
	s.calls = append(s.calls, rows)
	return nil
}

func (s *store) ListCloudUsage(context.Context, ports.CloudUsageQuery) ([]cursorcloud.DayUsage, error) {
	return nil, nil
}

var _ = Describe("Recorder (the Cursor cloud ledger)", func() {
	var (
		st       *store
		rec      *cloudledger.Recorder
		observed []cursorcloud.Usage
		ctx      = context.Background()
		now      = time.Date(2026, 12, 7, 23, 59, 0, 0, time.FixedZone("x", 3600))
	)
	cpp := cursorcloud.Route{Service: "aiserver.v1.AiService", Method: "StreamCpp"}
	meta := cursorcloud.Route{Service: "aiserver.v1.DashboardService", Method: "GetUserPrivacyMode"}

	BeforeEach(func() {
		st, observed = &store{}, nil
		rec = cloudledger.New(cloudledger.Options{Store: st, Now: func() time.Time { return now }, MaxPending: 3,
			Observe: func(u cursorcloud.Usage) { observed = append(observed, u) }})
	})

	It("aggregates requests per UTC day, user, route and decision, and writes them in one call per flush", func() {
		for range 3 {
			rec.Count(ctx, cursorcloud.Usage{UserID: "ada", Route: meta, Decision: cursorcloud.Passed, Up: 10, Down: 100})
		}
		rec.Count(ctx, cursorcloud.Usage{UserID: "ada", Route: cpp, Decision: cursorcloud.Refused})
		Expect(observed).To(HaveLen(4))
		Expect(rec.Flush(ctx)).To(Succeed())
		Expect(st.calls).To(HaveLen(1))
		Expect(st.calls[0]).To(ConsistOf(
			cursorcloud.DayUsage{Day: "2026-12-07", UserID: "ada", Route: meta, Decision: cursorcloud.Passed, Requests: 3, Up: 30, Down: 300},
			cursorcloud.DayUsage{Day: "2026-12-07", UserID: "ada", Route: cpp, Decision: cursorcloud.Refused, Requests: 1},
		))
		Expect(rec.Flush(ctx)).To(Succeed())
		Expect(st.calls).To(HaveLen(1), "nothing pending, nothing written")
	})

	It("keeps the rows of a failed flush for the next", func() {
		rec.Count(ctx, cursorcloud.Usage{UserID: "ada", Route: meta, Decision: cursorcloud.Passed, Up: 1})
		st.fail = true
		Expect(rec.Flush(ctx)).NotTo(Succeed())
		rec.Count(ctx, cursorcloud.Usage{UserID: "ada", Route: meta, Decision: cursorcloud.Passed, Up: 1})
		Expect(rec.Flush(ctx)).To(Succeed())
		Expect(st.calls).To(Equal([][]cursorcloud.DayUsage{{
			{Day: "2026-12-07", UserID: "ada", Route: meta, Decision: cursorcloud.Passed, Requests: 2, Up: 2},
		}}))
	})

	It("bounds the keys in memory, folding the rest into an overflow row without losing a count", func() {
		for i, u := range []string{"a", "b", "c", "d", "e"} {
			rec.Count(ctx, cursorcloud.Usage{UserID: u, Route: meta, Decision: cursorcloud.Passed, Up: int64(i)})
		}
		Expect(rec.Flush(ctx)).To(Succeed())
		var requests int64
		for _, r := range st.calls[0] {
			requests += r.Requests
		}
		Expect(requests).To(Equal(int64(5)))
		Expect(len(st.calls[0])).To(BeNumerically("<=", 5))
		Expect(st.calls[0]).To(ContainElement(HaveField("Route.Method", "(overflow)")))
	})
})
