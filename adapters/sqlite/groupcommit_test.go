package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/relstore"
	"keygate/adapters/sqlite"
	"keygate/ports"
)

var _ = Describe("Writes that queue together (group commit)", func() {
	var db *sqlite.DB
	BeforeEach(func(ctx SpecContext) {
		var err error
		db, err = sqlite.Open(ctx, GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
	})

	insert := func(ctx context.Context, id string) func(relstore.Tx) error {
		return func(tx relstore.Tx) error { return tx.PutSetting(ctx, id, []byte("v"), time.Now()) }
	}
	exists := func(ctx context.Context, id string) bool {
		err := db.Read(ctx, func(tx relstore.Tx) error { _, err := tx.GetSetting(ctx, id); return err })
		if errors.Is(err, ports.ErrNotFound) {
			return false
		}
		Expect(err).NotTo(HaveOccurred())
		return true
	}

	It("commits each write or none of it, whatever the others in its group do", func(ctx SpecContext) {
		errRefused := errors.New("refused by the caller")
		// A first write holds the writer while the others queue behind
		// it, so that they are likely to share the next transaction; what
		// the spec asserts holds whether they do or not.
		hold, held := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- db.Write(ctx, func(tx relstore.Tx) error { close(held); <-hold; return insert(ctx, "c-first")(tx) })
		}()
		<-held
		const n = 12
		errs := make([]error, n)
		panics := make([]any, n)
		var wg sync.WaitGroup
		for i := range n {
			id := fmt.Sprintf("c%d", i)
			wg.Go(func() {
				defer func() { panics[i] = recover() }()
				errs[i] = db.Write(ctx, func(tx relstore.Tx) error {
					if err := insert(ctx, id)(tx); err != nil {
						return err
					}
					switch i {
					case 3:
						return errRefused
					case 5:
						panic("write 5 panics")
					case 7:
						// A conversation whose head checkpoint does not
						// exist: a deferred foreign key, which only the
						// commit finds.
						return tx.InsertConversation(ctx, id, id+":root", time.Now())
					}
					return nil
				})
			})
		}
		time.Sleep(50 * time.Millisecond) // let the writes queue
		close(hold)
		wg.Wait()
		Expect(<-first).To(Succeed())
		Expect(exists(ctx, "c-first")).To(BeTrue())

		for i := range n {
			id := fmt.Sprintf("c%d", i)
			switch i {
			case 3:
				Expect(errs[i]).To(MatchError(errRefused))
				Expect(exists(ctx, id)).To(BeFalse(), "a failed write leaves nothing")
			case 5:
				Expect(panics[i]).To(Equal("write 5 panics"), "the panic reaches its own caller")
				Expect(exists(ctx, id)).To(BeFalse())
			case 7:
				Expect(errs[i]).To(MatchError(ports.ErrNotFound))
				Expect(exists(ctx, id)).To(BeFalse())
			default:
				Expect(errs[i]).NotTo(HaveOccurred(), id)
				Expect(panics[i]).To(BeNil(), id)
				Expect(exists(ctx, id)).To(BeTrue(), id)
			}
		}
	})

	It("writes nothing for a caller whose context ended", func(ctx SpecContext) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		Expect(db.Write(cctx, insert(ctx, "c-cancelled"))).To(MatchError(context.Canceled))
		Expect(exists(ctx, "c-cancelled")).To(BeFalse())
	})

	It("refuses writes once closed", func(ctx SpecContext) {
		Expect(db.Close()).To(Succeed())
		Expect(db.Write(ctx, insert(ctx, "c-late"))).NotTo(Succeed())
	})
})

var _ = Describe("The write-ahead log", func() {
	It("is copied into the database file beside the writer, without a commit doing it", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		size := func() int64 {
			fi, err := os.Stat(filepath.Join(dir, sqlite.FileName))
			Expect(err).NotTo(HaveOccurred())
			return fi.Size()
		}
		before := size()
		value := make([]byte, 64<<10)
		for i := range 32 {
			Expect(db.Write(ctx, func(tx relstore.Tx) error {
				return tx.PutSetting(ctx, fmt.Sprintf("big-%d", i), value, time.Now())
			})).To(Succeed())
		}
		// 2 MiB (512 pages of 4 KiB) is below SQLite's own 1,000-page
		// threshold at which a commit would copy the log.
		Eventually(size).Should(BeNumerically(">=", before+2<<20))
	})
})
