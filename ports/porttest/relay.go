package porttest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// RelayPair is two replicas' relays over one shared database.
type RelayPair struct {
	A, B ports.AppendRelay
}

// inbox collects what a claim delivers.
type inbox struct {
	mu  sync.Mutex
	got []string
}

func (i *inbox) deliver(p []byte) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.got = append(i.got, string(p))
}

func (i *inbox) all() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]string(nil), i.got...)
}

// DescribeAppendRelay declares the contract suite of ports.AppendRelay:
// one replica holds the stream (claims), the other receives the appends.
func DescribeAppendRelay(name string, open func() RelayPair) bool {
	return Describe(name+" AppendRelay", func() {
		var (
			p   RelayPair
			ctx context.Context
			key string
			in  *inbox
		)
		BeforeEach(func() { p, ctx, key, in = open(), context.Background(), uniq("request"), &inbox{} })
		claim := func(r ports.AppendRelay) func() {
			release, err := r.Claim(ctx, key, in.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(release)
			return release
		}
		forward := func(r ports.AppendRelay, payloads ...string) {
			for _, s := range payloads {
				Expect(r.Forward(ctx, "relay-contract", key, []byte(s))).To(Succeed())
			}
		}
		numbered := func(from, to int) []string {
			var out []string
			for i := from; i < to; i++ {
				out = append(out, fmt.Sprintf("append-%03d", i))
			}
			return out
		}

		It("delivers every append another replica forwards to the claimant, once and in order", func() {
			claim(p.A)
			forward(p.B, numbered(0, 40)...)
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal(numbered(0, 40)))
			Consistently(in.all).WithTimeout(300 * time.Millisecond).Should(HaveLen(40))
		})

		It("keeps appends that arrive before the stream and delivers them when it claims", func() {
			forward(p.B, "early-1", "early-2")
			claim(p.A)
			Expect(in.all()).To(Equal([]string{"early-1", "early-2"}), "waiting appends are delivered inside Claim")
			forward(p.B, "late")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"early-1", "early-2", "late"}))
		})

		It("delivers appends forwarded on the claimant's own replica too", func() {
			claim(p.A)
			forward(p.A, "local")
			forward(p.B, "remote")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"local", "remote"}))
		})

		It("carries an append larger than a NOTIFY payload", func() {
			big := string(bytes.Repeat([]byte("x"), 100_000))
			claim(p.A)
			forward(p.B, big)
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{big}))
		})

		It("stops delivering at release, and a later claim gets what came in between", func() {
			release := claim(p.A)
			forward(p.B, "before")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(HaveLen(1))
			release()
			forward(p.B, "between")
			Consistently(in.all).WithTimeout(300 * time.Millisecond).Should(HaveLen(1))
			later := &inbox{}
			release2, err := p.B.Claim(ctx, key, later.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(release2)
			Expect(later.all()).To(Equal([]string{"between"}))
		})

		It("keeps keys apart", func() {
			claim(p.A)
			Expect(p.B.Forward(ctx, "relay-contract", uniq("request"), []byte("other key"))).To(Succeed())
			forward(p.B, "mine")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"mine"}))
		})

		It("refuses a second claim of a claimed key on one replica with ErrConflict", func() {
			claim(p.A)
			_, err := p.A.Claim(ctx, key, func([]byte) {})
			Expect(err).To(MatchError(ports.ErrConflict))
		})
	})
}
