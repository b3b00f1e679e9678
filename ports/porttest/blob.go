package porttest

import (
	"bytes"
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

func describeBlobs(open Factory) {
	Describe("BlobStore", func() {
		var (
			bs   ports.BlobStore
			ctx  context.Context
			data []byte
			id   string
		)
		BeforeEach(func() {
			bs, ctx = open().Stores.Blobs, context.Background()
			data = []byte(uniq("blob"))
			id = ports.BlobID(data)
		})

		It("stores a blob under the SHA-256 of its bytes, idempotently under concurrent puts", func() {
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for i := range errs {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = bs.Put(ctx, id, data) }()
			}
			wg.Wait()
			for _, err := range errs {
				Expect(err).NotTo(HaveOccurred())
			}
			Expect(bs.Get(ctx, id)).To(Equal(data))
			Expect(bs.Has(ctx, id)).To(BeTrue())
		})

		It("rejects bytes that do not hash to the id with ErrBlobHashMismatch and stores nothing", func() {
			Expect(bs.Put(ctx, id, []byte("other bytes"))).To(MatchError(ports.ErrBlobHashMismatch))
			Expect(bs.Put(ctx, "not-a-hash", data)).To(MatchError(ports.ErrBlobHashMismatch))
			Expect(bs.Has(ctx, id)).To(BeFalse())
		})

		It("round-trips a 16 MiB blob and rejects a larger one with ErrBlobTooLarge", func() {
			big := bytes.Repeat([]byte{0xab, 0x01, 0x7f, 0x00}, ports.MaxBlobSize/4)
			Expect(bs.Put(ctx, ports.BlobID(big), big)).To(Succeed())
			got, err := bs.Get(ctx, ports.BlobID(big))
			Expect(err).NotTo(HaveOccurred())
			Expect(bytes.Equal(got, big)).To(BeTrue())
			bigger := append(big, 0)
			Expect(bs.Put(ctx, ports.BlobID(bigger), bigger)).To(MatchError(ports.ErrBlobTooLarge))
		})

		It("returns ErrNotFound for a blob that is not stored", func() {
			_, err := bs.Get(ctx, id)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(bs.Has(ctx, id)).To(BeFalse())
		})

		It("returns the context error for a cancelled context and stores nothing", func() {
			Expect(bs.Put(cancelled(ctx), id, data)).To(MatchError(context.Canceled))
			Expect(bs.Has(ctx, id)).To(BeFalse())
		})

		Describe("Link and Children", func() {
			It("records references from a parent to its children, in id order", func() {
				a, b := []byte(uniq("child")), []byte(uniq("child"))
				Expect(bs.Put(ctx, id, data)).To(Succeed())
				Expect(bs.Put(ctx, ports.BlobID(a), a)).To(Succeed())
				Expect(bs.Put(ctx, ports.BlobID(b), b)).To(Succeed())
				Expect(bs.Link(ctx, id, ports.BlobID(a), ports.BlobID(b))).To(Succeed())
				Expect(bs.Link(ctx, id, ports.BlobID(a))).To(Succeed())
				want := []string{ports.BlobID(a), ports.BlobID(b)}
				if want[0] > want[1] {
					want[0], want[1] = want[1], want[0]
				}
				Expect(bs.Children(ctx, id)).To(Equal(want))
			})

			It("returns ErrNotFound when the parent or a child is not stored", func() {
				Expect(bs.Link(ctx, id)).To(MatchError(ports.ErrNotFound))
				Expect(bs.Put(ctx, id, data)).To(Succeed())
				Expect(bs.Link(ctx, id, ports.BlobID([]byte("absent")))).To(MatchError(ports.ErrNotFound))
				Expect(bs.Children(ctx, id)).To(BeEmpty())
			})
		})
	})
}
