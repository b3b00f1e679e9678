package control_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/ports"
)

// pagedLister lists fixed summaries in order, counting what it read.
type pagedLister struct {
	rows []ports.ConversationSummary
	read int
}

func (l *pagedLister) Conversations(_ context.Context, after *ports.ConversationSummary, limit int) ([]ports.ConversationSummary, error) {
	start := 0
	if after != nil {
		for i, r := range l.rows {
			if r.ID == after.ID {
				start = i + 1
			}
		}
	}
	end := min(start+limit, len(l.rows))
	l.read += end - start
	return l.rows[start:end], nil
}

func (l *pagedLister) Checkpoints(context.Context, string) ([]ports.StoredCheckpoint, error) {
	return nil, nil
}

var _ = Describe("Searching conversations", func() {
	var (
		lister *pagedLister
		convs  *control.Conversations
	)
	BeforeEach(func() {
		lister = &pagedLister{}
		at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		for i := range 30 {
			title, user, model := fmt.Sprintf("question %d", i), "bob", "m-gpt"
			if i%10 == 3 {
				title, user, model = fmt.Sprintf("Why does the build fail (%d)?", i), "ada", "alias-sonnet"
			}
			lister.rows = append(lister.rows, ports.ConversationSummary{ID: fmt.Sprintf("conv-%02d", i), Title: title,
				UserID: user, Model: model, Turns: i, UpdatedAt: at.Add(-time.Duration(i) * time.Minute)})
		}
		convs = control.NewConversations(lister, nil)
		convs.NameModelsWith(func(context.Context) (map[string]string, error) {
			return map[string]string{"alias-sonnet": "Sonnet anywhere", "m-gpt": "GPT"}, nil
		})
	})

	It("lists every conversation with its model's name, in pages", func() {
		page, err := convs.Search(context.Background(), "", nil, 20)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Conversations).To(HaveLen(20))
		Expect(page.Conversations[3].ModelName).To(Equal("Sonnet anywhere"))
		Expect(page.Conversations[0].ModelName).To(Equal("GPT"))
		Expect(page.Next).NotTo(BeNil())
		rest, err := convs.Search(context.Background(), "", page.Next, 20)
		Expect(err).NotTo(HaveOccurred())
		Expect(rest.Conversations).To(HaveLen(10))
		Expect(rest.Next).To(BeNil())
	})

	DescribeTable("keeps the conversations that hold the query, whatever its case",
		func(query string, want []string) {
			page, err := convs.Search(context.Background(), query, nil, 50)
			Expect(err).NotTo(HaveOccurred())
			var ids []string
			for _, c := range page.Conversations {
				ids = append(ids, c.ID)
			}
			Expect(ids).To(Equal(want))
		},
		Entry("in the title", "BUILD fail", []string{"conv-03", "conv-13", "conv-23"}),
		Entry("in the user", "ada", []string{"conv-03", "conv-13", "conv-23"}),
		Entry("in the model's name", "anywhere", []string{"conv-03", "conv-13", "conv-23"}),
		Entry("in the id", "conv-29", []string{"conv-29"}),
		Entry("nowhere", "nothing like it", []string(nil)),
	)

	It("fills a page of matches across the pages it reads, and says where it stopped", func() {
		page, err := convs.Search(context.Background(), "ada", nil, 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Conversations).To(HaveLen(2))
		Expect(page.Next.ID).To(Equal("conv-13"))
		rest, err := convs.Search(context.Background(), "ada", page.Next, 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(rest.Conversations).To(HaveLen(1))
		Expect(rest.Conversations[0].ID).To(Equal("conv-23"))
		Expect(rest.Next).To(BeNil())
	})
})
