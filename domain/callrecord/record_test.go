package callrecord_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
)

var _ = Describe("Record", func() {
	var (
		start   time.Time
		running callrecord.Record
	)

	BeforeEach(func() {
		start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
		running = callrecord.Record{CallID: "r:0", Status: callrecord.StatusRunning,
			Timing: callrecord.Timing{RequestStarted: start, ResponseHeaders: start.Add(200 * time.Millisecond),
				FirstText: start.Add(900 * time.Millisecond)}}
	})

	It("completes from running with its finish reason and duration", func() {
		done, err := running.Complete(start.Add(3*time.Second), llm.FinishToolUse)
		Expect(err).NotTo(HaveOccurred())
		Expect(done.Status).To(Equal(callrecord.StatusCompleted))
		Expect(done.Finish).To(Equal(llm.FinishToolUse))
		Expect(done.Timing.Duration()).To(Equal(3 * time.Second))
		Expect(done.Timing.TTFB()).To(Equal(200 * time.Millisecond))
		Expect(done.Timing.TTFT()).To(Equal(900 * time.Millisecond))
	})

	It("fails from running with the error class and message", func() {
		failed, err := running.Fail(start.Add(time.Second), llm.ErrorRateLimit, "429")
		Expect(err).NotTo(HaveOccurred())
		Expect(failed.Status).To(Equal(callrecord.StatusError))
		Expect(failed.ErrorClass).To(Equal(llm.ErrorRateLimit))
	})

	It("marks an answer the content filter blocked as filtered, never completed, with the filter's categories", func() {
		filtered, err := running.Filtered(start.Add(time.Second), []llm.FilterHit{{Category: "hate", Severity: "high"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(filtered.Status).To(Equal(callrecord.StatusError))
		Expect(filtered.Finish).To(Equal(llm.FinishContentFilter))
		Expect(filtered.ErrorClass).To(Equal(llm.ErrorContentFilter))
		Expect(filtered.ErrorMessage).To(Equal("blocked by the provider's content filter: hate (high)"))
	})

	DescribeTable("finishes only once, from running",
		func(finish func(callrecord.Record) (callrecord.Record, error)) {
			cancelled, err := running.Cancel(start)
			Expect(err).NotTo(HaveOccurred())
			_, err = finish(cancelled)
			Expect(err).To(MatchError(callrecord.ErrNotRunning))
		},
		Entry("complete after cancel is refused", func(r callrecord.Record) (callrecord.Record, error) { return r.Complete(start, llm.FinishStop) }),
		Entry("fail after cancel is refused", func(r callrecord.Record) (callrecord.Record, error) { return r.Fail(start, llm.ErrorTransient, "") }),
		Entry("cancel after cancel is refused", func(r callrecord.Record) (callrecord.Record, error) { return r.Cancel(start) }),
	)

	It("reports zero durations for milestones never reached", func() {
		Expect(callrecord.Timing{RequestStarted: start}.TTFT()).To(BeZero())
		Expect(running.Timing.Duration()).To(BeZero())
	})
})

var _ = Describe("SensitiveHeader and SensitiveParam", func() {
	DescribeTable("credential headers are never recorded",
		func(name string, sensitive bool) {
			Expect(callrecord.SensitiveHeader(name)).To(Equal(sensitive))
		},
		Entry("Authorization", "Authorization", true),
		Entry("x-api-key in any case", "X-Api-Key", true),
		Entry("Azure's api-key", "api-key", true),
		Entry("Proxy-Authorization", "proxy-authorization", true),
		Entry("Cookie", "Cookie", true),
		Entry("anthropic-version is kept", "anthropic-version", false),
		Entry("content-type is kept", "Content-Type", false),
	)

	DescribeTable("key-like URL parameters lose their value",
		func(name string, sensitive bool) {
			Expect(callrecord.SensitiveParam(name)).To(Equal(sensitive))
		},
		Entry("key", "key", true),
		Entry("api-key", "api-key", true),
		Entry("api_key", "API_KEY", true),
		Entry("api-version is kept", "api-version", false),
	)
})
