package threatspec_test

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Threat 11: whoever reads the database reads every conversation, whatever the privacy setting", Ordered, func() {
	var k *stack
	BeforeAll(func() { k = startKeygate() })

	// turn runs one Cursor turn as mallory through the proxy and waits for
	// its end.
	turn := func(ctx context.Context, requestID, conv, text string) {
		GinkgoHelper()
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: requestID, Text: providertest.Words("Noted.")})))
		c := cursortest.NewClient(cursorAPI, k.CursorHTTP(k.memberToken), requestID)
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		// Cursor names each user message with a UUID, not its text.
		msg := cursortest.RunRequest(conv, k.modelID, text)
		msg.GetRunRequest().GetAction().GetUserMessageAction().GetUserMessage().MessageId = uuid.NewString()
		Expect(c.Send(ctx, msg)).To(Succeed())
		Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(st.EndError()).To(BeNil())
		Expect(strings.Join(st.Texts(), "")).To(Equal("Noted."))
	}

	// stored returns every kept prompt body with its kind, read straight
	// from the database as someone with a backup would.
	stored := func(ctx context.Context) map[string]string {
		GinkgoHelper()
		conn, err := pgx.Connect(ctx, k.databaseURL)
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close(ctx)
		rows, err := conn.Query(ctx, "SELECT kind, body FROM prompts")
		Expect(err).NotTo(HaveOccurred())
		out := map[string]string{}
		for rows.Next() {
			var kind string
			var b []byte
			Expect(rows.Scan(&kind, &b)).To(Succeed())
			out[string(b)] = kind
		}
		Expect(rows.Err()).NotTo(HaveOccurred())
		return out
	}

	It("keeps no text of a conversation while detailed mode is off, only what explains a cache break", func(ctx SpecContext) {
		const secret = "the merger with ACME closes on Friday"
		turn(ctx, "req-private-1", "conv-private", secret)
		prompts := stored(ctx)
		Expect(prompts).To(HaveLen(1))
		for b, kind := range prompts {
			Expect(kind).To(Equal("shape"))
			Expect(b).NotTo(ContainSubstring("merger with"), "base64 digests hold no spaces, so this is text")
		}
	}, SpecTimeout(60*time.Second))

	It("keeps the whole request only once an administrator turns detailed mode on", func(ctx SpecContext) {
		k.must(root, controlv1connect.SettingServiceUpdateSettingsProcedure, &controlv1.UpdateSettingsRequest{
			Settings: &controlv1.Settings{DetailedMode: true}}, nil)
		turn(ctx, "req-detailed-1", "conv-detailed", "detailed mode marker ZEBRA STRIPES")
		var whole []string
		for b, kind := range stored(ctx) {
			if kind == "request" {
				whole = append(whole, b)
			}
		}
		Expect(whole).To(HaveLen(1))
		Expect(whole[0]).To(ContainSubstring("ZEBRA STRIPES"))
	}, SpecTimeout(60*time.Second))
})
