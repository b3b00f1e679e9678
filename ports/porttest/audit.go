package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/audit"
	"keygate/domain/identity"
	"keygate/ports"
)

// DescribeAuditLog declares the contract suite of ports.AuditLog. open may
// return a log that already holds other specs' entries; each spec uses its
// own actor.
func DescribeAuditLog(name string, open func() ports.AuditLog) bool {
	return Describe(name+" AuditLog", func() {
		var (
			log   ports.AuditLog
			ctx   context.Context
			actor identity.Identity
			at    time.Time
		)
		BeforeEach(func() {
			log, ctx = open(), context.Background()
			actor = identity.Identity{UserID: uniq("admin"), Name: "root@example.com"}
			at = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
		})
		entry := func(action string) audit.Entry {
			return audit.Entry{At: at, Actor: actor, Role: "admin", Action: action, Target: "m1",
				Before: []byte(`{"apiKey":"[set]"}`), After: []byte(`{"apiKey":"[changed]"}`)}
		}

		It("stores an entry with every field and returns increasing sequence numbers", func() {
			first, err := log.AppendAudit(ctx, entry("model.create"))
			Expect(err).NotTo(HaveOccurred())
			second, err := log.AppendAudit(ctx, entry("model.update"))
			Expect(err).NotTo(HaveOccurred())
			Expect(second).To(BeNumerically(">", first))
			got, err := log.AuditEntries(ctx, ports.AuditQuery{ActorID: actor.UserID})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(HaveLen(2))
			Expect(got[0].Seq).To(Equal(second))
			Expect(got[0].Action).To(Equal("model.update"))
			Expect(got[0].Actor).To(Equal(actor))
			Expect(got[0].Role).To(Equal("admin"))
			Expect(got[0].Target).To(Equal("m1"))
			Expect(got[0].At).To(BeTemporally("==", at))
			Expect(got[0].Before).To(MatchJSON(`{"apiKey":"[set]"}`))
			Expect(got[0].After).To(MatchJSON(`{"apiKey":"[changed]"}`))
		})

		It("keeps a missing before or after document missing", func() {
			e := entry("model.create")
			e.Before = nil
			_, err := log.AppendAudit(ctx, e)
			Expect(err).NotTo(HaveOccurred())
			got, _ := log.AuditEntries(ctx, ports.AuditQuery{ActorID: actor.UserID})
			Expect(got).To(HaveLen(1))
			Expect(got[0].Before).To(BeNil())
		})

		It("pages newest first with a sequence cursor and a limit", func() {
			var seqs []int64
			for _, a := range []string{"a.one", "a.two", "a.three"} {
				s, err := log.AppendAudit(ctx, entry(a))
				Expect(err).NotTo(HaveOccurred())
				seqs = append(seqs, s)
			}
			page, err := log.AuditEntries(ctx, ports.AuditQuery{ActorID: actor.UserID, Limit: 2})
			Expect(err).NotTo(HaveOccurred())
			Expect(page).To(HaveExactElements(HaveField("Seq", seqs[2]), HaveField("Seq", seqs[1])))
			next, err := log.AuditEntries(ctx, ports.AuditQuery{ActorID: actor.UserID, BeforeSeq: seqs[1]})
			Expect(err).NotTo(HaveOccurred())
			Expect(next).To(HaveExactElements(HaveField("Seq", seqs[0])))
		})

		It("lists every actor's entries without an actor filter", func() {
			other := entry("token.revoke")
			other.Actor = identity.Identity{UserID: uniq("admin")}
			_, err := log.AppendAudit(ctx, entry("model.delete"))
			Expect(err).NotTo(HaveOccurred())
			_, err = log.AppendAudit(ctx, other)
			Expect(err).NotTo(HaveOccurred())
			all, err := log.AuditEntries(ctx, ports.AuditQuery{Limit: 1000})
			Expect(err).NotTo(HaveOccurred())
			Expect(all).To(ContainElements(HaveField("Actor", actor), HaveField("Actor", other.Actor)))
		})

		It("refuses an entry without an actor", func() {
			e := entry("model.update")
			e.Actor = identity.Identity{}
			_, err := log.AppendAudit(ctx, e)
			Expect(err).To(MatchError(audit.ErrIncomplete))
		})
	})
}
