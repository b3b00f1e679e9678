package porttest

import (
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// DescribeFingerprintStore declares the contract suite of
// ports.FingerprintStore.
func DescribeFingerprintStore(name string, open func() ports.FingerprintStore) bool {
	return Describe(name+" FingerprintStore", func() {
		var (
			st  ports.FingerprintStore
			ctx context.Context
		)
		BeforeEach(func() { st, ctx = open(), context.Background() })

		It("knows no fingerprint before one is recorded", func() {
			_, err := st.Fingerprint(ctx, uniq("fp"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("records the first fingerprint and keeps it against later records, telling each caller the one recorded", func() {
			n := uniq("fp")
			Expect(st.RecordFingerprint(ctx, n, "aaaa")).To(Equal("aaaa"))
			Expect(st.RecordFingerprint(ctx, n, "bbbb")).To(Equal("aaaa"), "a second record changes nothing")
			Expect(st.Fingerprint(ctx, n)).To(Equal("aaaa"))
			Expect(st.RecordFingerprint(ctx, uniq("fp"), "bbbb")).To(Equal("bbbb"), "names are independent")
		})

		It("lets exactly one of concurrent first records win, and every caller learns which", func() {
			n := uniq("fp")
			fps := []string{"r1", "r2", "r3", "r4"}
			got := make([]string, len(fps))
			var wg sync.WaitGroup
			for i, fp := range fps {
				wg.Add(1)
				go func() {
					defer GinkgoRecover()
					defer wg.Done()
					rec, err := st.RecordFingerprint(ctx, n, fp)
					Expect(err).NotTo(HaveOccurred())
					got[i] = rec
				}()
			}
			wg.Wait()
			Expect(fps).To(ContainElement(got[0]))
			Expect(got).To(HaveEach(got[0]))
			Expect(st.Fingerprint(ctx, n)).To(Equal(got[0]))
		})

		It("replaces a fingerprint only when it is the one the caller expects", func() {
			n := uniq("fp")
			Expect(st.ReplaceFingerprint(ctx, n, "aaaa", "bbbb")).To(MatchError(ports.ErrNotFound))
			Expect(st.RecordFingerprint(ctx, n, "aaaa")).To(Equal("aaaa"))
			Expect(st.ReplaceFingerprint(ctx, n, "zzzz", "bbbb")).To(MatchError(ports.ErrConflict))
			Expect(st.Fingerprint(ctx, n)).To(Equal("aaaa"))
			Expect(st.ReplaceFingerprint(ctx, n, "aaaa", "bbbb")).To(Succeed())
			Expect(st.Fingerprint(ctx, n)).To(Equal("bbbb"))
		})

		It("returns the context's error when cancelled, having written nothing", func() {
			n := uniq("fp")
			_, err := st.RecordFingerprint(cancelled(ctx), n, "aaaa")
			Expect(err).To(MatchError(context.Canceled))
			_, err = st.Fingerprint(ctx, n)
			Expect(err).To(MatchError(ports.ErrNotFound))
			_, err = st.Fingerprint(cancelled(ctx), n)
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}
