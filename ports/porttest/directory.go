package porttest

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// DirectoryStore is what a store offers for provisioning: its directory
// of users and groups, and users' cutoffs.
type DirectoryStore interface {
	ports.Directory
	ports.Deprovisions
}

// DescribeDirectory declares the contract suites of ports.Directory and
// ports.Deprovisions. open returns a store that may already hold other
// specs' entries: each spec uses a kind and user ids of its own.
func DescribeDirectory(name string, open func() DirectoryStore) bool {
	return Describe(name+" Directory and Deprovisions", func() {
		var (
			st   DirectoryStore
			ctx  context.Context
			kind string
			at   time.Time
		)
		BeforeEach(func() {
			st, ctx, kind = open(), context.Background(), uniq("Kind")
			at = time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
		})
		entry := func(id, name string) ports.DirectoryEntry {
			return ports.DirectoryEntry{Kind: kind, ID: id, Name: name, ExternalID: "ext-" + id, Active: true,
				Members: []string{"u1", "u2"}, Attributes: []byte(`{"name":{"givenName":"Ada"}}`), Created: at, Updated: at}
		}

		It("stores an entry and reads it back whole", func() {
			e := entry("a", "ada@corp.test")
			Expect(st.CreateEntry(ctx, e)).To(Succeed())
			got, err := st.Entry(ctx, kind, "a")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Created).To(BeTemporally("==", at))
			got.Created, got.Updated = e.Created, e.Updated
			Expect(got).To(Equal(e))
			_, err = st.Entry(ctx, kind, "b")
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("refuses a second entry with the same id, or the same name in another case", func() {
			Expect(st.CreateEntry(ctx, entry("a", "ada@corp.test"))).To(Succeed())
			Expect(st.CreateEntry(ctx, entry("a", "bob@corp.test"))).To(MatchError(ports.ErrConflict))
			Expect(st.CreateEntry(ctx, entry("b", strings.ToUpper("ada@corp.test")))).To(MatchError(ports.ErrConflict))
		})

		It("replaces an entry keeping its creation time, refuses a taken name, and reports a missing one", func() {
			Expect(st.CreateEntry(ctx, entry("a", "ada@corp.test"))).To(Succeed())
			Expect(st.CreateEntry(ctx, entry("b", "bob@corp.test"))).To(Succeed())
			e := entry("a", "ada.l@corp.test")
			e.Active, e.Members, e.Created, e.Updated = false, nil, at.Add(time.Hour), at.Add(time.Hour)
			Expect(st.ReplaceEntry(ctx, e)).To(Succeed())
			got, err := st.Entry(ctx, kind, "a")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Name).To(Equal("ada.l@corp.test"))
			Expect(got.Active).To(BeFalse())
			Expect(got.Members).To(BeEmpty())
			Expect(got.Created).To(BeTemporally("==", at))
			Expect(got.Updated).To(BeTemporally("==", at.Add(time.Hour)))

			e.Name = "BOB@corp.test"
			Expect(st.ReplaceEntry(ctx, e)).To(MatchError(ports.ErrConflict))
			Expect(st.ReplaceEntry(ctx, entry("c", "carol@corp.test"))).To(MatchError(ports.ErrNotFound))
		})

		It("lists a kind's entries oldest first, bounded, and deletes one", func() {
			for i, id := range []string{"c", "a", "b"} {
				e := entry(id, id+"@corp.test")
				e.Created = at.Add(time.Duration(i) * time.Minute)
				Expect(st.CreateEntry(ctx, e)).To(Succeed())
			}
			ids := func(limit int) []string {
				list, err := st.Entries(ctx, kind, limit)
				Expect(err).NotTo(HaveOccurred())
				var out []string
				for _, e := range list {
					out = append(out, e.ID)
				}
				return out
			}
			Expect(ids(10)).To(Equal([]string{"c", "a", "b"}))
			Expect(ids(2)).To(Equal([]string{"c", "a"}))
			Expect(st.DeleteEntry(ctx, kind, "a")).To(Succeed())
			Expect(ids(10)).To(Equal([]string{"c", "b"}))
			Expect(st.DeleteEntry(ctx, kind, "a")).To(MatchError(ports.ErrNotFound))
			Expect(st.CreateEntry(ctx, entry("d", "a@corp.test"))).To(Succeed(), "a deleted entry's name is free again")
		})

		It("blocks a user, keeps the latest cut, and keeps it after unblocking", func() {
			user := uniq("user")
			blocked, cut, err := st.Cutoff(ctx, user)
			Expect(err).NotTo(HaveOccurred())
			Expect(blocked).To(BeFalse())
			Expect(cut.IsZero()).To(BeTrue())
			Expect(st.Unblock(ctx, user)).To(Succeed(), "unblocking a user never cut changes nothing")

			Expect(st.Block(ctx, user, at)).To(Succeed())
			Expect(st.Block(ctx, user, at.Add(-time.Hour))).To(Succeed())
			blocked, cut, err = st.Cutoff(ctx, user)
			Expect(err).NotTo(HaveOccurred())
			Expect(blocked).To(BeTrue())
			Expect(cut).To(BeTemporally("==", at), "an earlier cut keeps the later one")

			Expect(st.Unblock(ctx, user)).To(Succeed())
			blocked, cut, err = st.Cutoff(ctx, user)
			Expect(err).NotTo(HaveOccurred())
			Expect(blocked).To(BeFalse())
			Expect(cut).To(BeTemporally("==", at))

			Expect(st.Block(ctx, user, at.Add(time.Hour))).To(Succeed())
			blocked, cut, _ = st.Cutoff(ctx, user)
			Expect(blocked).To(BeTrue())
			Expect(cut).To(BeTemporally("==", at.Add(time.Hour)))
		})

		It("returns the context's error when cancelled", func() {
			Expect(st.CreateEntry(cancelled(ctx), entry("a", "a@corp.test"))).To(MatchError(context.Canceled))
			_, _, err := st.Cutoff(cancelled(ctx), uniq("user"))
			Expect(err).To(MatchError(context.Canceled))
			Expect(st.Block(cancelled(ctx), uniq("user"), at)).To(MatchError(context.Canceled))
		})
	})
}
