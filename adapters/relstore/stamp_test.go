package relstore_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/relstore"
)

var _ = Describe("A time column", func() {
	at := time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.FixedZone("CET", 3600))

	It("is Unix milliseconds on SQLite, read back in UTC", func() {
		v := relstore.StampOf[int64](at)
		Expect(v).To(Equal(at.UnixMilli()))
		Expect(relstore.TimeOf(v)).To(Equal(at.UTC()))
		Expect(relstore.TimeOf(v).Location()).To(Equal(time.UTC))
	})

	It("is the time itself on PostgreSQL, read back in UTC", func() {
		v := relstore.StampOf[time.Time](at)
		Expect(v).To(BeTemporally("==", at))
		Expect(relstore.TimeOf(v)).To(Equal(at.UTC()))
	})

	It("keeps the zero time as each engine's never: 0 on SQLite, the zero time on PostgreSQL", func() {
		Expect(relstore.StampOf[int64](time.Time{})).To(BeZero())
		Expect(relstore.TimeOf(int64(0))).To(BeZero())
		Expect(relstore.StampOf[time.Time](time.Time{})).To(BeZero())
		Expect(relstore.TimeOf(time.Time{})).To(BeZero())
	})
})
