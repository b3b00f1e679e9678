package porttest

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// ModelMappingFactory opens a mapping store for one spec and registers its
// cleanup with DeferCleanup. Stores may share data between specs: every
// spec uses its own Cursor model ids.
type ModelMappingFactory func() ports.ModelMappingStore

// DescribeModelMappingStores declares the contract suite of
// ports.ModelMappingStore for one implementation:
//
//	var _ = porttest.DescribeModelMappingStores("SQLite", factory)
func DescribeModelMappingStores(name string, open ModelMappingFactory) bool {
	return Describe(name+" model mappings", func() {
		var (
			st  ports.ModelMappingStore
			ctx context.Context
		)
		BeforeEach(func() { st, ctx = open(), context.Background() })
		get := func(id string) ports.ModelMapping {
			GinkgoHelper()
			m, err := st.ModelMapping(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			return m
		}

		It("stores, lists, replaces and deletes a mapping, any string as the Cursor id", func() {
			a, b := uniq("gpt-5 ü/"), uniq("auto")
			Expect(st.PutModelMapping(ctx, ports.ModelMapping{CursorModel: a, Target: "model-1"})).To(Succeed())
			Expect(st.PutModelMapping(ctx, ports.ModelMapping{CursorModel: b, Target: "alias-1"})).To(Succeed())
			first := get(a)
			Expect(first.Target).To(Equal("model-1"))
			Expect(first.CreatedAt).NotTo(BeZero())

			all, err := st.ModelMappings(ctx)
			Expect(err).NotTo(HaveOccurred())
			var mine []string
			for _, m := range all {
				if m.CursorModel == a || m.CursorModel == b {
					mine = append(mine, m.CursorModel)
				}
			}
			Expect(mine).To(HaveLen(2))
			Expect(mine[0] < mine[1]).To(BeTrue(), "ordered by Cursor id")

			Expect(st.PutModelMapping(ctx, ports.ModelMapping{CursorModel: a, Target: "model-2"})).To(Succeed())
			again := get(a)
			Expect(again.Target).To(Equal("model-2"))
			Expect(again.CreatedAt).To(Equal(first.CreatedAt), "a replacement keeps CreatedAt")

			Expect(st.DeleteModelMapping(ctx, a)).To(Succeed())
			_, err = st.ModelMapping(ctx, a)
			Expect(err).To(MatchError(ports.ErrNotFound))
			Expect(st.DeleteModelMapping(ctx, a)).To(MatchError(ports.ErrNotFound))
		})

		It("refuses a mapping without a Cursor id or target", func() {
			Expect(st.PutModelMapping(ctx, ports.ModelMapping{Target: "m"})).NotTo(Succeed())
			id := uniq("x")
			Expect(st.PutModelMapping(ctx, ports.ModelMapping{CursorModel: id})).NotTo(Succeed())
			_, err := st.ModelMapping(ctx, id)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})

		It("honours a cancelled context", func() {
			id := uniq("x")
			Expect(st.PutModelMapping(cancelled(ctx), ports.ModelMapping{CursorModel: id, Target: "m"})).To(MatchError(context.Canceled))
			_, err := st.ModelMapping(ctx, id)
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
