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

// RelayPair is two replicas' relays over one shared database, whose
// leases last a second or so, so that a lease expires within a spec.
type RelayPair struct {
	A, B ports.AppendRelay
	// StopA stops A as a dying replica stops: its leases are neither
	// renewed nor released.
	StopA func()
}

// inbox collects what a lease delivers.
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
// one replica holds the run key (Acquire), the other receives the appends
// and follows the holder's output.
func DescribeAppendRelay(name string, open func() RelayPair) bool {
	return Describe(name+" AppendRelay", func() {
		var (
			p   RelayPair
			ctx context.Context
			key string
			in  *inbox
		)
		BeforeEach(func() { p, ctx, key, in = open(), context.Background(), uniq("request"), &inbox{} })
		acquire := func(r ports.AppendRelay) ports.RunLease {
			l, err := r.Acquire(ctx, key, in.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { l.Release(false) })
			return l
		}
		claim := func(r ports.AppendRelay) func() {
			l := acquire(r)
			return func() { l.Release(false) }
		}
		forward := func(r ports.AppendRelay, payloads ...string) {
			for _, s := range payloads {
				Expect(r.Forward(ctx, "relay-contract", key, []byte(s), false)).To(Succeed())
			}
		}
		numbered := func(from, to int) []string {
			var out []string
			for i := from; i < to; i++ {
				out = append(out, fmt.Sprintf("append-%03d", i))
			}
			return out
		}

		It("delivers every append another replica forwards to the key's holder, once and in order", func() {
			claim(p.A)
			forward(p.B, numbered(0, 40)...)
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal(numbered(0, 40)))
			Consistently(in.all).WithTimeout(300 * time.Millisecond).Should(HaveLen(40))
		})

		It("keeps appends that arrive before the stream and delivers them when it takes the key", func() {
			forward(p.B, "early-1", "early-2")
			claim(p.A)
			Expect(in.all()).To(Equal([]string{"early-1", "early-2"}), "waiting appends are delivered inside Acquire")
			forward(p.B, "late")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"early-1", "early-2", "late"}))
		})

		It("delivers appends forwarded on the holder's own replica too", func() {
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

		It("stops delivering at release, and a later lease gets what came in between", func() {
			release := claim(p.A)
			forward(p.B, "before")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(HaveLen(1))
			release()
			forward(p.B, "between")
			Consistently(in.all).WithTimeout(300 * time.Millisecond).Should(HaveLen(1))
			later := &inbox{}
			l2, err := p.B.Acquire(ctx, key, later.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { l2.Release(false) })
			Expect(later.all()).To(Equal([]string{"between"}))
		})

		It("keeps keys apart", func() {
			claim(p.A)
			Expect(p.B.Forward(ctx, "relay-contract", uniq("request"), []byte("other key"), false)).To(Succeed())
			forward(p.B, "mine")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"mine"}))
		})

		It("refuses a second lease of a held key on one replica with ErrConflict", func() {
			claim(p.A)
			_, err := p.A.Acquire(ctx, key, func([]byte) {})
			Expect(err).To(MatchError(ports.ErrConflict))
		})

		It("lets exactly one replica hold a key: the other is refused with ErrLeaseHeld until the holder releases it", func() {
			first := acquire(p.A)
			_, err := p.B.Acquire(ctx, key, func([]byte) {})
			Expect(err).To(MatchError(ports.ErrLeaseHeld))
			first.Release(false)
			second, err := p.B.Acquire(ctx, key, in.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { second.Release(false) })
			Expect(second.Token()).To(BeNumerically(">", first.Token()), "fencing tokens grow")
		})

		It("wakes a reader of the key's output on another replica when the holder publishes, and when it lets the key go", func() {
			l := acquire(p.A)
			wake, stop := p.B.Changes(key)
			DeferCleanup(stop)
			Expect(l.Publish(ctx, [][]byte{[]byte("one")}, nil)).To(Succeed())
			Eventually(wake).WithTimeout(10*time.Second).Should(Receive(), "woken by the publish")
			page, err := p.B.Follow(ctx, key, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Frames).To(Equal([][]byte{[]byte("one")}))
			l.Release(true)
			Eventually(wake).WithTimeout(10*time.Second).Should(Receive(), "woken by the release")
			page, err = p.B.Follow(ctx, key, page.Last)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Held).To(BeFalse())
		})

		It("does not wake a reader of another key, nor one that stopped", func() {
			l := acquire(p.A)
			other, stopOther := p.B.Changes(uniq("request"))
			DeferCleanup(stopOther)
			wake, stop := p.B.Changes(key)
			stop()
			stop()
			mine, stopMine := p.B.Changes(key)
			DeferCleanup(stopMine)
			Expect(l.Publish(ctx, [][]byte{[]byte("one")}, nil)).To(Succeed())
			Eventually(mine).WithTimeout(10 * time.Second).Should(Receive())
			Expect(other).NotTo(Receive())
			Expect(wake).NotTo(Receive())
		})

		It("moves a key to another replica once its holder stops renewing, and fences the old holder", func() {
			old := acquire(p.A)
			Expect(old.Publish(ctx, [][]byte{[]byte("from A")}, nil)).To(Succeed())
			p.StopA()
			var next ports.RunLease
			Eventually(func() error {
				var err error
				next, err = p.B.Acquire(ctx, key, in.deliver)
				return err
			}).WithTimeout(20 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
			DeferCleanup(func() { next.Release(false) })
			Expect(next.Token()).To(BeNumerically(">", old.Token()))

			By("refusing the old holder's output as stale")
			Expect(old.Publish(ctx, [][]byte{[]byte("stale")}, nil)).To(MatchError(ports.ErrNotOwner))
			Expect(next.Publish(ctx, [][]byte{[]byte("from B")}, nil)).To(Succeed())
			page, err := p.A.Follow(ctx, key, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Token).To(Equal(next.Token()))
			Expect(page.Frames).To(Equal([][]byte{[]byte("from B")}))
		})

		It("says a lease is lost once another replica took the key", func() {
			old := acquire(p.A)
			p.StopA()
			Eventually(func() error {
				l, err := p.B.Acquire(ctx, key, in.deliver)
				if err == nil {
					DeferCleanup(func() { l.Release(false) })
				}
				return err
			}).WithTimeout(20 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
			Expect(old.Publish(ctx, nil, []byte("end"))).To(MatchError(ports.ErrNotOwner))
			Expect(old.Lost()).To(BeClosed())
		})

		It("serves the holder's output to another replica, in order, with its end, and tells the holder it is watched", func() {
			l := acquire(p.A)
			Expect(l.Publish(ctx, [][]byte{[]byte("one"), []byte("two")}, nil)).To(Succeed())
			page, err := p.B.Follow(ctx, key, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Held).To(BeTrue())
			Expect(page.Frames).To(Equal([][]byte{[]byte("one"), []byte("two")}))
			Expect(page.End).To(BeNil())
			Eventually(l.Watched).WithTimeout(10 * time.Second).Should(BeTrue())

			Expect(l.Publish(ctx, [][]byte{[]byte("three")}, []byte("end"))).To(Succeed())
			page, err = p.B.Follow(ctx, key, page.Last)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Frames).To(Equal([][]byte{[]byte("three")}))
			Expect(page.End).To(Equal([]byte("end")))
		})

		It("reports a key without a lease as not held, and one whose holder released it without an end", func() {
			page, err := p.B.Follow(ctx, key, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Held).To(BeFalse())
			l := acquire(p.A)
			l.Release(false)
			page, err = p.B.Follow(ctx, key, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(page.Held).To(BeFalse())
			Expect(page.End).To(BeNil())
		})

		It("drops appends that arrive after the key's stream ended until one opens a turn", func() {
			l := acquire(p.A)
			l.Release(false)
			forward(p.B, "waiting before the end")
			l, err := p.A.Acquire(ctx, key, in.deliver)
			Expect(err).NotTo(HaveOccurred())
			Expect(in.all()).To(Equal([]string{"waiting before the end"}))
			Expect(p.B.Forward(ctx, "relay-contract", key, []byte("in flight at the end"), false)).To(Succeed())
			Eventually(in.all).WithTimeout(10 * time.Second).Should(HaveLen(2))
			l.Release(true)

			Expect(p.B.Forward(ctx, "relay-contract", key, []byte("late"), false)).To(MatchError(ports.ErrLateAppend))
			Expect(p.B.Forward(ctx, "relay-contract", key, []byte("next turn opens"), true)).To(Succeed())
			Expect(p.B.Forward(ctx, "relay-contract", key, []byte("next turn goes on"), false)).To(Succeed())
			next := &inbox{}
			l2, err := p.B.Acquire(ctx, key, next.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { l2.Release(false) })
			Expect(next.all()).To(Equal([]string{"next turn opens", "next turn goes on"}))
		})

		Describe("an opening append taken by a replica that dies before the turn's first commit", func() {
			open := func(payload string) {
				Expect(p.B.Forward(ctx, "relay-contract", key, []byte(payload), true)).To(Succeed())
			}
			takeOver := func() *inbox {
				next := &inbox{}
				Eventually(func() error {
					l, err := p.B.Acquire(ctx, key, next.deliver)
					if err == nil {
						DeferCleanup(func() { l.Release(false) })
					}
					return err
				}).WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
				return next
			}

			It("goes again to the next lease of the key, with what followed it", func() {
				open("turn opens")
				acquire(p.A)
				Expect(in.all()).To(Equal([]string{"turn opens"}))
				forward(p.B, "turn goes on")
				Eventually(in.all).WithTimeout(10 * time.Second).Should(HaveLen(2))
				p.StopA() // killed before its first commit: never settled nor released
				next := takeOver()
				Expect(next.all()).To(Equal([]string{"turn opens", "turn goes on"}), "the turn's appends again, in order")
			})

			It("goes again to the next lease when it reached the holder directly and was kept", func() {
				l := acquire(p.A)
				Expect(l.Keep(ctx, "relay-contract", []byte("turn opens at the holder"), true)).To(Succeed())
				forward(p.B, "turn goes on")
				Eventually(in.all).WithTimeout(10*time.Second).Should(Equal([]string{"turn goes on"}), "a kept append is not delivered to its own lease")
				p.StopA()
				next := takeOver()
				Expect(next.all()).To(Equal([]string{"turn opens at the holder", "turn goes on"}))
			})

			It("leaves the mailbox as delivered once the lease settled", func() {
				open("turn opens")
				l := acquire(p.A)
				Expect(l.Settle(ctx)).To(Succeed())
				forward(p.B, "after the first commit")
				Eventually(in.all).WithTimeout(10 * time.Second).Should(HaveLen(2))
				Expect(l.Keep(ctx, "relay-contract", []byte("direct, after the first commit"), false)).To(Succeed())
				p.StopA()
				next := takeOver()
				Consistently(next.all).WithTimeout(300 * time.Millisecond).Should(BeEmpty())
			})

			It("is not delivered again once settled", func() {
				open("turn opens")
				l := acquire(p.A)
				Expect(in.all()).To(Equal([]string{"turn opens"}))
				Expect(l.Settle(ctx)).To(Succeed())
				p.StopA()
				next := takeOver()
				Consistently(next.all).WithTimeout(300 * time.Millisecond).Should(BeEmpty())
			})

			It("is not delivered again after its lease was released", func() {
				open("turn opens")
				l := acquire(p.A)
				Expect(in.all()).To(Equal([]string{"turn opens"}))
				l.Release(false)
				next := takeOver()
				Consistently(next.all).WithTimeout(300 * time.Millisecond).Should(BeEmpty())
			})

			It("is delivered once to a lease that lives", func() {
				open("turn opens")
				acquire(p.A)
				forward(p.B, "turn goes on")
				Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"turn opens", "turn goes on"}))
				open("a second turn opens")
				Eventually(in.all).WithTimeout(10 * time.Second).Should(HaveLen(3))
				Consistently(in.all).WithTimeout(300 * time.Millisecond).Should(Equal([]string{"turn opens", "turn goes on", "a second turn opens"}))
			})
		})

		It("accepts the appends of a turn that opened at the holder after an ended stream", func() {
			l := acquire(p.A)
			l.Release(true)
			Expect(p.B.Forward(ctx, "relay-contract", key, []byte("late"), false)).To(MatchError(ports.ErrLateAppend))
			l2, err := p.A.Acquire(ctx, key, in.deliver)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { l2.Release(false) })
			Expect(l2.Opened(ctx)).To(Succeed())
			forward(p.B, "second append of the new turn")
			Eventually(in.all).WithTimeout(10 * time.Second).Should(Equal([]string{"second append of the new turn"}))
		})
	})
}
