package llm_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
)

var _ = Describe("llm names", func() {
	DescribeTable("every enumeration has a stable lower-case name for logs and records",
		func(got, want string) { Expect(got).To(Equal(want)) },
		Entry("system role", llm.RoleSystem.String(), "system"),
		Entry("user role", llm.RoleUser.String(), "user"),
		Entry("assistant role", llm.RoleAssistant.String(), "assistant"),
		Entry("tool role", llm.RoleTool.String(), "tool"),
		Entry("an unknown role", llm.Role(0).String(), "unknown"),
		Entry("stop", llm.FinishStop.String(), "stop"),
		Entry("length", llm.FinishLength.String(), "length"),
		Entry("tool use", llm.FinishToolUse.String(), "tool_use"),
		Entry("content filter", llm.FinishContentFilter.String(), "content_filter"),
		Entry("an unknown finish", llm.FinishReason(0).String(), "unknown"),
		Entry("transient", llm.ErrorTransient.String(), "transient"),
		Entry("rate limit", llm.ErrorRateLimit.String(), "rate_limit"),
		Entry("authorization", llm.ErrorAuthorization.String(), "authorization"),
		Entry("bad request", llm.ErrorBadRequest.String(), "bad_request"),
		Entry("context overflow", llm.ErrorContextOverflow.String(), "context_overflow"),
		Entry("refusal", llm.ErrorRefusal.String(), "refusal"),
		Entry("protocol", llm.ErrorProtocol.String(), "protocol"),
		Entry("content filter class", llm.ErrorContentFilter.String(), "content_filter"),
		Entry("an unknown class", llm.ErrorClass(0).String(), "unknown"),
		Entry("start event", llm.EventStart.String(), "start"),
		Entry("arguments delta event", llm.EventToolCallArgumentsDelta.String(), "tool_call_arguments_delta"),
		Entry("done event", llm.EventDone.String(), "done"),
		Entry("an unknown event", llm.EventKind(0).String(), "unknown"),
		Entry("an out-of-range event", llm.EventKind(200).String(), "unknown"),
	)

	It("describes a content filter's hits for people, severity where the filter gives one", func() {
		Expect(llm.DescribeFilter([]llm.FilterHit{{Category: "hate", Severity: "medium"}, {Category: "protected_material_text"}})).
			To(Equal("hate (medium), protected_material_text"))
		Expect(llm.DescribeFilter(nil)).To(BeEmpty())
	})

	Describe("ProviderError", func() {
		It("states class, status and message, and unwraps to its cause", func() {
			cause := errors.New("connection reset")
			err := error(&llm.ProviderError{Class: llm.ErrorTransient, Status: 502, Message: "bad gateway", Err: cause})
			Expect(err.Error()).To(Equal("provider transient (502): bad gateway"))
			Expect(errors.Is(err, cause)).To(BeTrue())
			Expect((&llm.ProviderError{Class: llm.ErrorProtocol, Message: "bad SSE"}).Error()).To(Equal("provider protocol: bad SSE"))
		})
	})
})
