package failure_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/provider/failure"
	"keygate/domain/llm"
	"keygate/ports"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

var _ = Describe("RetryAfter", func() {
	DescribeTable("reads the wait from whichever header the provider sent",
		func(header []string, want time.Duration) {
			h := http.Header{}
			for i := 0; i < len(header); i += 2 {
				h.Set(header[i], header[i+1])
			}
			Expect(failure.RetryAfter(h, now)).To(Equal(want))
		},
		Entry("Retry-After in seconds", []string{"Retry-After", "20"}, 20*time.Second),
		Entry("Retry-After as an HTTP date", []string{"Retry-After", now.Add(45 * time.Second).Format(http.TimeFormat)}, 45*time.Second),
		Entry("Retry-After in the past means no wait", []string{"Retry-After", now.Add(-time.Minute).Format(http.TimeFormat)}, time.Duration(0)),
		Entry("retry-after-ms", []string{"Retry-After-Ms", "1500"}, 1500*time.Millisecond),
		Entry("ratelimit-reset in seconds", []string{"Ratelimit-Reset", "12"}, 12*time.Second),
		Entry("x-ratelimit-reset as a Unix time", []string{"X-Ratelimit-Reset", "1796040060"}, time.Unix(1796040060, 0).Sub(now)),
		Entry("x-rate-limit-reset as small seconds", []string{"X-Rate-Limit-Reset", "3"}, 3*time.Second),
		Entry("x-ratelimit-reset-requests as a duration", []string{"X-Ratelimit-Reset-Requests", "1m30s"}, 90*time.Second),
		Entry("the longer of the requests and tokens resets", []string{"X-Ratelimit-Reset-Requests", "250ms", "X-Ratelimit-Reset-Tokens", "6m0s"}, 6*time.Minute),
		Entry("no header means no wait", []string{}, time.Duration(0)),
	)
})

var _ = Describe("Status", func() {
	DescribeTable("classifies an HTTP status",
		func(status int, body string, class llm.ErrorClass) {
			e := failure.Status("Anthropic", status, []byte(body))
			Expect(e.Class).To(Equal(class))
			Expect(e.Status).To(Equal(status))
			Expect(e.Message).To(HavePrefix(fmt.Sprintf("Anthropic %d: ", status)))
		},
		Entry("429 is a rate limit", 429, "", llm.ErrorRateLimit),
		Entry("401 is authorization", 401, "", llm.ErrorAuthorization),
		Entry("403 is authorization", 403, "", llm.ErrorAuthorization),
		Entry("404 (unknown model) is a bad request", 404, "", llm.ErrorBadRequest),
		Entry("413 is a bad request", 413, "", llm.ErrorBadRequest),
		Entry("422 is a bad request", 422, "", llm.ErrorBadRequest),
		Entry("408 is transient", 408, "", llm.ErrorTransient),
		Entry("425 is transient", 425, "", llm.ErrorTransient),
		Entry("500 is transient", 500, "", llm.ErrorTransient),
		Entry("529 (overloaded) is transient", 529, "", llm.ErrorTransient),
		Entry("400 with maximum context length … tokens is a context overflow", 400, "This model's maximum context length is 8192 tokens", llm.ErrorContextOverflow),
	)

	It("classifies Azure's refusal of a filtered prompt as a content-filter block naming the categories it acted on", func() {
		body := `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,` +
			`"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":true,"severity":"high"},"jailbreak":{"filtered":true,"detected":true},"self_harm":{"filtered":false,"severity":"safe"}}}}}`
		e := failure.Status("OpenAI Chat", 400, []byte(body))
		Expect(e.Class).To(Equal(llm.ErrorContentFilter))
		Expect(e.Message).To(Equal("OpenAI Chat 400: the provider's content filter blocked the request: hate (high), jailbreak"))
	})

	It("bounds the kept body and names the protocol and status", func() {
		e := failure.Status("OpenAI Chat", 500, []byte(strings.Repeat("x", 20000)))
		Expect(e.Message).To(HavePrefix("OpenAI Chat 500: xxx"))
		Expect(len(e.Message)).To(BeNumerically("<", 8300))
	})
})

var _ = Describe("InBand", func() {
	DescribeTable("maps vendor error codes to classes",
		func(code string, class llm.ErrorClass) {
			Expect(failure.InBand("X", code, "m").Class).To(Equal(class))
		},
		Entry("rate_limit_exceeded", "rate_limit_exceeded", llm.ErrorRateLimit),
		Entry("rate_limit_error", "rate_limit_error", llm.ErrorRateLimit),
		Entry("insufficient_quota", "insufficient_quota", llm.ErrorRateLimit),
		Entry("quota_exceeded", "quota_exceeded", llm.ErrorRateLimit),
		Entry("server_error", "server_error", llm.ErrorTransient),
		Entry("api_error", "api_error", llm.ErrorTransient),
		Entry("overloaded_error", "overloaded_error", llm.ErrorTransient),
		Entry("internal_server_error", "internal_server_error", llm.ErrorTransient),
		Entry("authentication_error", "authentication_error", llm.ErrorAuthorization),
		Entry("permission_error", "permission_error", llm.ErrorAuthorization),
		Entry("invalid_api_key", "invalid_api_key", llm.ErrorAuthorization),
		Entry("invalid_request_error", "invalid_request_error", llm.ErrorBadRequest),
		Entry("context_length_exceeded", "context_length_exceeded", llm.ErrorContextOverflow),
		Entry("an unknown code is retried like a transport failure", "ERR_SOMETHING", llm.ErrorTransient),
	)

	It("recognises context overflow from the message even under another code", func() {
		Expect(failure.InBand("Anthropic", "invalid_request_error", "prompt is too long: 1 > 0").Class).To(Equal(llm.ErrorContextOverflow))
	})
})

var _ = Describe("Refused", func() {
	It("makes a request the outbound policy stopped a bad request carrying the policy's message, and nothing else", func() {
		refused := &egress.RefusedError{Dest: "169.254.169.254:80", Reason: "a link-local address"}
		wrapped := &url.Error{Op: "Post", URL: "http://169.254.169.254/v1?key=sk-secret", Err: fmt.Errorf("dial: %w", refused)}
		perr := failure.Refused("OpenAI Chat", wrapped)
		Expect(perr).NotTo(BeNil())
		Expect(perr.Class).To(Equal(llm.ErrorBadRequest))
		Expect(perr.Message).To(HavePrefix("OpenAI Chat: outbound connection to 169.254.169.254:80 refused"))
		Expect(perr.Error()).NotTo(ContainSubstring("sk-secret"), "the URL is not part of it")
		Expect(errors.Is(perr, ports.ErrDestinationRefused)).To(BeTrue())

		perr = failure.Refused("OpenAI models", fmt.Errorf("get: %w", &egress.RedirectError{From: "https://a.test:443", To: "https://b.test:443"}))
		Expect(perr.Class).To(Equal(llm.ErrorBadRequest))
		Expect(errors.Is(perr, egress.ErrCrossOriginRedirect)).To(BeTrue())

		Expect(failure.Refused("OpenAI Chat", errors.New("connection reset"))).To(BeNil())
	})
})
