package memories_test

import (
	"context"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/memories"
	"keygate/domain/identity"
	"keygate/domain/turn"
	"keygate/ports"
)

// store is a ports.MemoryStore in memory, in the order added.
type store struct{ ms []ports.Memory }

func (s *store) AddMemory(_ context.Context, m ports.Memory) (ports.Memory, error) {
	s.ms = append(s.ms, m)
	return m, nil
}

func (s *store) Memories(_ context.Context, userID string, limit int) ([]ports.Memory, error) {
	var out []ports.Memory
	for _, m := range s.ms {
		if m.UserID == userID || userID == "" {
			out = append(out, m)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (s *store) Memory(_ context.Context, userID, id string) (ports.Memory, error) {
	for _, m := range s.ms {
		if m.ID == id && (m.UserID == userID || userID == "") {
			return m, nil
		}
	}
	return ports.Memory{}, ports.ErrNotFound
}

func (s *store) UpdateMemory(_ context.Context, userID, id, title, knowledge string) error {
	for i, m := range s.ms {
		if m.ID == id && m.UserID == userID {
			s.ms[i].Title, s.ms[i].Knowledge = title, knowledge
			return nil
		}
	}
	return ports.ErrNotFound
}

func (s *store) DeleteMemory(_ context.Context, userID, id string) error {
	n := len(s.ms)
	s.ms = slices.DeleteFunc(s.ms, func(m ports.Memory) bool { return m.ID == id && m.UserID == userID })
	if len(s.ms) == n {
		return ports.ErrNotFound
	}
	return nil
}

var _ = Describe("The memories use case", func() {
	var (
		st       *store
		svc      *memories.Service
		ada, bob context.Context
	)
	BeforeEach(func() {
		st = &store{}
		svc = memories.New(st)
		ada = identity.NewContext(context.Background(), identity.Identity{UserID: "ada"})
		bob = identity.NewContext(context.Background(), identity.Identity{UserID: "bob"})
	})

	It("keeps each caller's memories for them, recalled in the order added", func() {
		_, err := svc.Add(ada, "Style", "Tabs.", "git@example:r")
		Expect(err).NotTo(HaveOccurred())
		_, err = svc.Add(ada, "Tests", "Ginkgo.", "")
		Expect(err).NotTo(HaveOccurred())
		m, err := svc.Add(bob, "Lang", "French.", "")
		Expect(err).NotTo(HaveOccurred())
		Expect(m.UserID).To(Equal("bob"))
		Expect(m.ID).NotTo(BeEmpty())

		recalled, err := svc.Recall(ada)
		Expect(err).NotTo(HaveOccurred())
		Expect(recalled).To(Equal(turn.Memories{{Title: "Style", Knowledge: "Tabs."}, {Title: "Tests", Knowledge: "Ginkgo."}}))
		Expect(svc.Remove(ada, m.ID)).To(MatchError(ports.ErrNotFound), "bob's memory is not ada's to delete")
		Expect(svc.Update(ada, m.ID, "x", "y")).To(MatchError(ports.ErrNotFound))
	})

	It("refuses a caller-less request, an empty or over-long memory, and one too many", func() {
		_, err := svc.Add(context.Background(), "t", "k", "")
		Expect(err).To(MatchError(memories.ErrNoCaller))
		_, err = svc.Add(ada, "t", " \n", "")
		Expect(err).To(MatchError(ports.ErrInvalidMemory))
		_, err = svc.Add(ada, strings.Repeat("t", memories.MaxTitle+1), "k", "")
		Expect(err).To(MatchError(ports.ErrInvalidMemory))
		_, err = svc.Add(ada, "t", strings.Repeat("k", memories.MaxKnowledge+1), "")
		Expect(err).To(MatchError(ports.ErrInvalidMemory))
		for range memories.MaxPerUser {
			_, err = svc.Add(ada, "t", "k", "")
			Expect(err).NotTo(HaveOccurred())
		}
		_, err = svc.Add(ada, "t", "k", "")
		Expect(err).To(MatchError(ports.ErrInvalidMemory))
		_, err = svc.Add(bob, "t", "k", "")
		Expect(err).NotTo(HaveOccurred(), "the bound is per user")
	})
})
