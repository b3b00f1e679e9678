package company_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/domain/access"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/tab"
	"keygate/ports"
)

// The cross-tenant matrix at the ports: every read and write the console
// and the Cursor routes make through the scoped stores, tried by a member
// against another member's conversation.
var _ = Describe("Tenancy store decorators", func() {
	var (
		st      *relstore.Store
		tenancy *company.Tenancy
		ada     = access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
		bob     = access.Principal{Identity: identity.Identity{UserID: "bob"}, Role: access.Member}
		admin   = access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
		as      = func(p access.Principal) context.Context { return access.NewContext(context.Background(), p) }
		started = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
		convs   ports.ConversationStore
		adaHead string
	)
	// record stores a running call record of conversation conv, made in
	// user's turn.
	record := func(callID, conv, user string, at time.Time) {
		Expect(st.CallRecords().Start(context.Background(), callrecord.Record{
			CallID: callID, RunID: "run-" + callID, ConversationID: conv, UserID: user, Status: callrecord.StatusRunning,
			Timing: callrecord.Timing{RequestStarted: at},
		})).To(Succeed())
	}
	BeforeEach(func() {
		db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st = sqlite.NewStore(db)
		tenancy = company.NewTenancy(st.Owners())
		convs = tenancy.ConversationStore(st.Stores().Conversations)
		head, err := convs.Open(as(ada), "conv-ada")
		Expect(err).NotTo(HaveOccurred())
		adaHead = head.ID()
		_, err = convs.Open(as(bob), "conv-bob")
		Expect(err).NotTo(HaveOccurred())
		record("call-ada", "conv-ada", "ada", started)
		record("call-bob", "conv-bob", "bob", started.Add(time.Second))
		Expect(st.CallRecords().Request(context.Background(), "call-ada",
			callrecord.Request{Method: "POST", URL: "https://api.example/v1/responses", Body: []byte(`{}`)})).To(Succeed())
	})

	DescribeTable("a member never reaches another member's conversation",
		func(try func(ctx context.Context) error, refusal error) {
			Expect(try(as(bob))).To(MatchError(refusal))
			Expect(try(as(ada))).To(Succeed(), "the owner does")
			Expect(try(as(admin))).To(Succeed(), "an administrator does")
		},
		Entry("through a call record", func(ctx context.Context) error {
			_, err := tenancy.CallReader(st.CallRecords()).CallRecord(ctx, "call-ada")
			return err
		}, ports.ErrNotFound),
		Entry("through a call's detail", func(ctx context.Context) error {
			_, _, err := tenancy.CallReader(st.CallRecords()).CallDetail(ctx, "call-ada")
			return err
		}, ports.ErrNotFound),
		Entry("through a conversation's checkpoints", func(ctx context.Context) error {
			_, err := tenancy.Conversations(st.Conversations()).Checkpoints(ctx, "conv-ada")
			return err
		}, ports.ErrNotFound),
		Entry("through the console's conversation head", func(ctx context.Context) error {
			_, err := tenancy.ConsoleConversations(st.Stores().Conversations).Head(ctx, "conv-ada")
			return err
		}, ports.ErrNotFound),
		Entry("through the console's checkpoint messages", func(ctx context.Context) error {
			_, _, err := tenancy.ConsoleConversations(st.Stores().Conversations).Load(ctx, adaHead)
			return err
		}, ports.ErrNotFound),
		Entry("through the run engine's Open", func(ctx context.Context) error {
			if p, _ := access.FromContext(ctx); p.IsAdmin() {
				return nil // administrators do not run turns in other users' conversations
			}
			_, err := convs.Open(ctx, "conv-ada")
			return err
		}, access.ErrDenied),
		Entry("through the run engine's Head", func(ctx context.Context) error {
			if p, _ := access.FromContext(ctx); p.IsAdmin() {
				return nil
			}
			_, err := convs.Head(ctx, "conv-ada")
			return err
		}, access.ErrDenied),
		Entry("through the run engine's Load", func(ctx context.Context) error {
			if p, _ := access.FromContext(ctx); p.IsAdmin() {
				return nil
			}
			_, _, err := convs.Load(ctx, adaHead)
			return err
		}, access.ErrDenied),
	)

	It("lists only a member's own calls and conversations, and everything to an administrator", func() {
		calls := tenancy.CallLister(st.CallRecords())
		Expect(calls.CallRecords(as(bob), ports.CallQuery{})).To(ConsistOf(HaveField("CallID", "call-bob")))
		Expect(calls.CallRecords(as(bob), ports.CallQuery{ConversationID: "conv-ada"})).To(BeEmpty())
		Expect(calls.CallRecords(as(bob), ports.CallQuery{UserID: "ada"})).To(BeEmpty())
		Expect(calls.CallRecords(as(admin), ports.CallQuery{UserID: "ada"})).To(ConsistOf(HaveField("CallID", "call-ada")))
		Expect(calls.CallRecords(as(admin), ports.CallQuery{})).To(HaveLen(2))
		list := tenancy.Conversations(st.Conversations())
		Expect(list.Conversations(as(ada), nil, 10)).To(ConsistOf(HaveField("ID", "conv-ada")))
		Expect(list.Conversations(as(admin), nil, 10)).To(HaveLen(2))
	})

	It("reads only a member's own Tab fates, and everyone's to an administrator", func() {
		ctx := context.Background()
		for _, user := range []string{"ada", "bob"} {
			Expect(st.CallRecords().Start(ctx, callrecord.Record{CallID: "tab-" + user, RunID: "req-" + user, UserID: user,
				Kind: callrecord.KindTab, Status: callrecord.StatusRunning, Timing: callrecord.Timing{RequestStarted: started}})).To(Succeed())
			Expect(st.Fates().RecordFate(ctx, ports.SuggestionFate{UserID: user, RequestID: "req-" + user, Fate: tab.FateAccepted})).To(Succeed())
		}
		fates := tenancy.SuggestionFateLister(st.Fates())
		Expect(fates.SuggestionFates(as(bob), ports.FateQuery{})).To(ConsistOf(HaveField("UserID", "bob")))
		Expect(fates.SuggestionFates(as(bob), ports.FateQuery{UserID: "ada"})).To(BeEmpty())
		Expect(fates.SuggestionFates(as(admin), ports.FateQuery{})).To(HaveLen(2))
		Expect(fates.SuggestionFates(as(admin), ports.FateQuery{UserID: "ada"})).To(ConsistOf(HaveField("UserID", "ada")))
		_, err := fates.SuggestionFates(ctx, ports.FateQuery{})
		Expect(err).To(MatchError(access.ErrDenied))
	})

	It("fills a member's page although other users' calls come first", func() {
		for i := range 5 {
			record(fmt.Sprintf("call-bob-%d", i), "conv-bob", "bob", started.Add(time.Duration(10+i)*time.Second))
		}
		page, err := tenancy.CallLister(st.CallRecords()).CallRecords(as(ada), ports.CallQuery{Limit: 2})
		Expect(err).NotTo(HaveOccurred())
		Expect(page).To(ConsistOf(HaveField("CallID", "call-ada")))
	})

	It("fills a member's conversation page past other users' conversations, and goes on after its cursor", func() {
		_, err := convs.Open(as(ada), "conv-ada-2")
		Expect(err).NotTo(HaveOccurred())
		for i := range 4 {
			_, err := convs.Open(as(bob), fmt.Sprintf("conv-bob-%d", i))
			Expect(err).NotTo(HaveOccurred())
		}
		list := tenancy.Conversations(st.Conversations())
		var seen []string
		var after *ports.ConversationSummary
		for range 3 {
			page, err := list.Conversations(as(ada), after, 1)
			Expect(err).NotTo(HaveOccurred())
			if len(page) == 0 {
				break
			}
			Expect(page).To(HaveLen(1))
			seen = append(seen, page[0].ID)
			after = &page[0]
		}
		Expect(seen).To(ConsistOf("conv-ada", "conv-ada-2"))
	})

	It("refuses console reads without a signed-in principal", func() {
		_, err := tenancy.CallLister(st.CallRecords()).CallRecords(context.Background(), ports.CallQuery{})
		Expect(err).To(MatchError(access.ErrDenied))
	})
})
