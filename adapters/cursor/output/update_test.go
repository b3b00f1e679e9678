package output_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/output"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

var _ = Describe("TurnEnded", func() {
	It("reports the whole prompt as input and leaves out counts the provider did not report", func() {
		te := output.TurnEnded(llm.Usage{Input: 10, CacheRead: 90, Output: 5,
			Known: llm.UsageInput | llm.UsageCacheRead | llm.UsageOutput}).GetInteractionUpdate().GetTurnEnded()
		Expect(te.GetInputTokens()).To(BeEquivalentTo(100))
		Expect(te.GetCacheReadTokens()).To(BeEquivalentTo(90))
		Expect(te.GetOutputTokens()).To(BeEquivalentTo(5))
		Expect(te.CacheWriteTokens).To(BeNil())
		Expect(te.ReasoningTokens).To(BeNil())
	})
})

var _ = Describe("request constructors", func() {
	It("put the wire id on execs, queries and KV requests", func() {
		Expect(output.Exec(7, &agentv1.ExecServerMessage{}).GetExecServerMessage().GetId()).To(BeEquivalentTo(7))
		Expect(output.Query(8, &agentv1.InteractionQuery{}).GetInteractionQuery().GetId()).To(BeEquivalentTo(8))
		Expect(output.SetBlob(9, []byte("id"), []byte("data")).GetKvServerMessage().GetSetBlobArgs().GetBlobData()).To(Equal([]byte("data")))
		Expect(output.Abort(3).GetExecServerControlMessage().GetAbort().GetId()).To(BeEquivalentTo(3))
	})

	It("reports thinking time in milliseconds", func() {
		Expect(output.ThinkingCompleted(1500 * time.Millisecond).GetInteractionUpdate().GetThinkingCompleted().GetThinkingDurationMs()).To(BeEquivalentTo(1500))
	})
})
