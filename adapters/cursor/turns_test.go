package cursor_test

import (
	"context"
	"errors"
	"sync"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/domain/budget"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// turnLog records what Trace and Admit were told, in order.
type turnLog struct {
	mu     sync.Mutex
	events []string
	ends   []error
	admit  error
}

func (l *turnLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *turnLog) Events() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

func (l *turnLog) Ends() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.ends...)
}

func (l *turnLog) options() cursor.Options {
	return cursor.Options{
		Transport: cursortest.FastTimings(),
		Trace: func(ctx context.Context, requestID, conversationID, model string) (context.Context, func(error)) {
			l.add("trace " + requestID + " " + conversationID + " " + model)
			return ctx, func(err error) {
				l.mu.Lock()
				defer l.mu.Unlock()
				l.events = append(l.events, "trace end")
				l.ends = append(l.ends, err)
			}
		},
		Admit: func(_ context.Context, requestID, parentRequestID string) (func(), error) {
			l.add("admit " + requestID + " parent=" + parentRequestID)
			if l.admit != nil {
				return nil, l.admit
			}
			return func() { l.add("release") }, nil
		},
	}
}

var _ = Describe("Turns Keygate serves, traced and admitted", func() {
	var (
		log     *turnLog
		handler *cursortest.ScriptedRunHandler
		env     *cursortest.Env
	)
	BeforeEach(func() { log = &turnLog{} })
	JustBeforeEach(func() {
		handler = cursortest.NewScriptedRunHandler(cursortest.Reply("hi"))
		env = cursortest.Serve(handler, log.options())
		DeferCleanup(env.Close)
	})
	turn := func(ctx context.Context, c *cursortest.Client) *cursortest.Stream {
		s, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-t", "m1", "hello"))).To(Succeed())
		Eventually(s.Done()).Should(BeClosed())
		return s
	}

	It("traces each turn around its admission and releases the admission once the turn is over", func(ctx SpecContext) {
		s := turn(ctx, env.Client("req-t1"))
		Expect(s.EndError()).To(BeNil())
		Expect(s.Texts()).To(Equal([]string{"hi"}))
		Eventually(log.Events).Should(Equal([]string{"trace req-t1 conv-t m1", "admit req-t1 parent=", "release", "trace end"}))
		Expect(log.Ends()).To(Equal([]error{nil}))
	})

	It("tells the admission a subagent's parent", func(ctx SpecContext) {
		c := env.Client("req-child")
		c.Header.Set("X-Parent-Request-Id", "req-parent")
		c.Header.Set("X-Parent-Agent-Tool-Call-Id", "call-1")
		turn(ctx, c)
		Expect(log.Events()).To(ContainElement("admit req-child parent=req-parent"))
	})

	Context("when the admission refuses the turn for a limit", func() {
		BeforeEach(func() {
			log.admit = &budget.ExceededError{Limit: budget.LimitConcurrentRuns, Used: 1, Max: 1}
		})

		It("ends it at once with the limit's message in the client's error bubble, never running it", func(ctx SpecContext) {
			s := turn(ctx, env.Client("req-t2"))
			Expect(s.EndError()).NotTo(BeNil())
			Expect(s.EndError().Code()).To(Equal(connect.CodeResourceExhausted))
			Expect(s.EndError().Details()).To(HaveLen(1))
			v, err := s.EndError().Details()[0].Value()
			Expect(err).NotTo(HaveOccurred())
			Expect(v).To(BeAssignableToTypeOf(&aiserverv1.ErrorDetails{}))
			d := v.(*aiserverv1.ErrorDetails).GetDetails()
			Expect(d.GetTitle()).To(Equal("Keygate Limit Reached"))
			Expect(d.GetDetail()).To(ContainSubstring("agent runs in progress"))
			Expect(handler.Turns()).To(BeEmpty())
			Eventually(log.Ends).Should(HaveLen(1))
			Expect(log.Ends()[0]).To(HaveOccurred(), "the turn's span records the refusal")
			Expect(log.Events()).NotTo(ContainElement("release"))
		})
	})

	Context("when the admission fails otherwise", func() {
		BeforeEach(func() { log.admit = errors.New("lease store down") })

		It("ends the turn as internal, never running it", func(ctx SpecContext) {
			s := turn(ctx, env.Client("req-t3"))
			Expect(s.EndError()).NotTo(BeNil())
			Expect(s.EndError().Code()).To(Equal(connect.CodeInternal))
			Expect(handler.Turns()).To(BeEmpty())
		})
	})
})
