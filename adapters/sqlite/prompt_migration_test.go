package sqlite_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Upgrading the prompts an earlier Keygate kept", func() {
	It("keeps the whole requests of calls recorded in detail and deletes the rest, which detailed mode never allowed", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		calls := sqlite.NewStore(db).CallRecords()
		start := time.Now().UTC().Truncate(time.Millisecond)
		for _, id := range []string{"detailed", "plain"} {
			Expect(calls.Start(ctx, callrecord.Record{CallID: id, RunID: "run", ConversationID: "conv", Status: callrecord.StatusRunning,
				Model: callrecord.ModelSnapshot{ProviderKind: llm.ProviderOpenAIChat, ModelID: "m"}, Timing: callrecord.Timing{RequestStarted: start}})).To(Succeed())
		}
		Expect(calls.Request(ctx, "detailed", callrecord.Request{Method: "POST", Body: []byte("{}")})).To(Succeed())
		Expect(db.Close()).To(Succeed())

		By("going back to the schema before shapes and storing prompts as it did: every call's whole request")
		raw := rawSchemaAt(ctx, db.Path(), 106)
		req := llm.Request{Model: "m", Messages: []llm.Message{{ID: "u", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "secret"}}}}}
		body, err := json.Marshal(req)
		Expect(err).NotTo(HaveOccurred())
		for _, id := range []string{"detailed", "plain", "no-record"} {
			_, err := raw.ExecContext(ctx, "INSERT INTO prompts (call_id, request, created_at) VALUES (?, ?, ?)", id, body, start.UnixMilli())
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(raw.Close()).To(Succeed())

		By("opening it with this Keygate")
		db, err = sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		prompts := sqlite.NewStore(db).Prompts()
		kept, err := prompts.Prompt(ctx, "detailed")
		Expect(err).NotTo(HaveOccurred())
		Expect(kept.Request).To(Equal(&req))
		Expect(kept.At).To(BeTemporally("==", start))
		for _, id := range []string{"plain", "no-record"} {
			_, err := prompts.Prompt(ctx, id)
			Expect(err).To(MatchError(ports.ErrNotFound), id)
		}
	})
})
