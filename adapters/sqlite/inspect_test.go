package sqlite_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
)

var _ = Describe("sqlite.Inspect", func() {
	It("reports a missing database without creating it, and an opened one as up to date", func() {
		ctx := context.Background()
		dir := filepath.Join(GinkgoT().TempDir(), "data")
		_, err := sqlite.Inspect(ctx, dir)
		Expect(err).To(MatchError(fs.ErrNotExist))
		_, err = os.Stat(dir)
		Expect(err).To(MatchError(fs.ErrNotExist), "nothing was created")

		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(db.Close()).To(Succeed())
		s, err := sqlite.Inspect(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Latest).To(BeNumerically(">", 0))
		Expect(s.Current).To(Equal(s.Latest))
		Expect(s.Pending()).To(BeFalse())
	})
})
