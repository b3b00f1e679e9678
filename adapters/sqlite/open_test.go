package sqlite_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
)

var _ = Describe("sqlite.Open", func() {
	When("the data directory does not exist yet", func() {
		It("creates it with mode 0700 and the database file inside, even under a path with spaces", func() {
			dir := filepath.Join(GinkgoT().TempDir(), "home with spaces", "keygate")
			db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(db.Close)
			info, err := os.Stat(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o700)))
			Expect(db.Path()).To(Equal(filepath.Join(dir, sqlite.FileName)))
			Expect(db.Path()).To(BeARegularFile())
		})
	})

	It("creates the database file and its -wal and -shm files with mode 0600", func() {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		Expect(sqlite.NewStore(db).Stores().Settings.PutSetting(context.Background(), "probe", []byte(`1`))).To(Succeed())
		for _, name := range []string{sqlite.FileName, sqlite.FileName + "-wal", sqlite.FileName + "-shm"} {
			info, err := os.Stat(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred(), name)
			Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)), name)
		}
	})

	It("narrows a database file an older Keygate created 0644 to 0600", func() {
		dir := GinkgoT().TempDir()
		first, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Close()).To(Succeed())
		path := filepath.Join(dir, sqlite.FileName)
		Expect(os.Chmod(path, 0o644)).To(Succeed())
		again, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(again.Close)
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
	})

	It("opens a store written before and applies no migration twice", func() {
		dir := GinkgoT().TempDir()
		first, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Close()).To(Succeed())
		again, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Close()).To(Succeed())
	})
})
