package porttest

import (
	"cmp"
	"context"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// MemoryFactory opens a memory store for one spec and registers its
// cleanup with DeferCleanup. Stores may share data between specs: every
// spec uses its own users and ids.
type MemoryFactory func() ports.MemoryStore

// DescribeMemoryStores declares the contract suite of ports.MemoryStore for
// one implementation:
//
//	var _ = porttest.DescribeMemoryStores("SQLite", factory)
func DescribeMemoryStores(name string, open MemoryFactory) bool {
	return Describe(name+" memories", func() {
		var (
			st          ports.MemoryStore
			ctx         context.Context
			user, other string
		)
		BeforeEach(func() {
			st, ctx = open(), context.Background()
			user, other = uniq("user"), uniq("user")
		})
		add := func(userID, title string) ports.Memory {
			m, err := st.AddMemory(ctx, ports.Memory{ID: uniq("mem"), UserID: userID, Title: title, Knowledge: "know " + title, GitOrigin: "git@example:r"})
			Expect(err).NotTo(HaveOccurred())
			return m
		}
		list := func(userID string) []ports.Memory {
			got, err := st.Memories(ctx, userID, 0)
			Expect(err).NotTo(HaveOccurred())
			return got
		}

		It("lists a user's memories oldest first, as added, and only theirs", func() {
			a, b := add(user, "a"), add(user, "b")
			theirs := add(other, "c")
			Expect(a.CreatedAt).NotTo(BeZero())
			// Two memories added within a millisecond are ordered by id.
			want := []ports.Memory{a, b}
			slices.SortFunc(want, func(x, y ports.Memory) int {
				return cmp.Or(x.CreatedAt.Compare(y.CreatedAt), strings.Compare(x.ID, y.ID))
			})
			Expect(list(user)).To(Equal(want))
			Expect(list(other)).To(Equal([]ports.Memory{theirs}))
			limited, err := st.Memories(ctx, user, 1)
			Expect(err).NotTo(HaveOccurred())
			Expect(limited).To(Equal(want[:1]))
		})

		It("lists every user's memories for an empty user", func() {
			a, c := add(user, "a"), add(other, "c")
			Expect(list("")).To(ContainElements(a, c))
		})

		It("reads, edits and deletes a user's own memory", func() {
			m := add(user, "a")
			got, err := st.Memory(ctx, user, m.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(m))
			Expect(st.UpdateMemory(ctx, user, m.ID, "new title", "new knowledge")).To(Succeed())
			got, err = st.Memory(ctx, "", m.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Title).To(Equal("new title"))
			Expect(got.Knowledge).To(Equal("new knowledge"))
			Expect(got.CreatedAt).To(Equal(m.CreatedAt))
			Expect(got.UpdatedAt).NotTo(BeTemporally("<", m.UpdatedAt))
			Expect(st.DeleteMemory(ctx, user, m.ID)).To(Succeed())
			Expect(list(user)).To(BeEmpty())
			Expect(st.DeleteMemory(ctx, user, m.ID)).To(MatchError(ports.ErrNotFound))
		})

		It("reports another user's memory as missing to every call naming a user", func() {
			m := add(user, "a")
			_, err := st.Memory(ctx, other, m.ID)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(st.UpdateMemory(ctx, other, m.ID, "x", "y")).To(MatchError(ports.ErrNotFound))
			Expect(st.DeleteMemory(ctx, other, m.ID)).To(MatchError(ports.ErrNotFound))
			Expect(list(user)).To(Equal([]ports.Memory{m}))
		})

		It("refuses a memory without an id or user, and an id already used", func() {
			_, err := st.AddMemory(ctx, ports.Memory{UserID: user, Title: "t"})
			Expect(err).To(HaveOccurred())
			_, err = st.AddMemory(ctx, ports.Memory{ID: uniq("mem"), Title: "t"})
			Expect(err).To(HaveOccurred())
			m := add(user, "a")
			_, err = st.AddMemory(ctx, ports.Memory{ID: m.ID, UserID: other, Title: "t"})
			Expect(err).To(MatchError(ports.ErrConflict))
			Expect(list(other)).To(BeEmpty())
		})

		It("honours a cancelled context", func() {
			_, err := st.AddMemory(cancelled(ctx), ports.Memory{ID: uniq("mem"), UserID: user})
			Expect(err).To(MatchError(context.Canceled))
			Expect(list(user)).To(BeEmpty())
			_, err = st.Memories(cancelled(ctx), user, 0)
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}
