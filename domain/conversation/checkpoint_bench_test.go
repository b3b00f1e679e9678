package conversation_test

import (
	"fmt"
	"testing"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

// BenchmarkAppendDecision measures planning and deciding a two-message
// append onto histories of different lengths. The cost is reported, not
// asserted: it should not grow with the history, because a checkpoint
// stores and hashes only its delta.
func BenchmarkAppendDecision(b *testing.B) {
	for _, size := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("history=%d", size), func(b *testing.B) {
			log, err := conversation.NewLog("bench")
			if err != nil {
				b.Fatal(err)
			}
			batch := make([]conversation.Message, 0, size)
			for i := range size {
				m, err := conversation.NewText(fmt.Sprintf("m%d", i), llm.RoleUser, conversation.OriginUser, "history line")
				if err != nil {
					b.Fatal(err)
				}
				batch = append(batch, m)
			}
			if _, err := log.Apply(conversation.AppendTo(log.Head(), batch...)); err != nil {
				b.Fatal(err)
			}
			next := []conversation.Message{}
			for _, id := range []string{"new-1", "new-2"} {
				m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginRuntime, "new turn")
				if err != nil {
					b.Fatal(err)
				}
				next = append(next, m)
			}
			head := log.Head()
			b.ResetTimer()
			for b.Loop() {
				plan, err := conversation.AppendTo(head, next...).Plan()
				if err != nil {
					b.Fatal(err)
				}
				d, err := plan.Decide(conversation.Facts{HeadID: head.ID()})
				if err != nil || len(d.Checkpoint.Delta()) != 2 {
					b.Fatal(err, d.Checkpoint.Delta())
				}
			}
		})
	}
}
