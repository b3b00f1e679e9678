package control_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = DescribeTable("MaskKey",
	func(key, hint string) { Expect(control.MaskKey(key)).To(Equal(hint)) },
	Entry("no key gives no hint", "", ""),
	Entry("a short key shows nothing of itself", "sk-abc", "••••••"),
	Entry("a long key shows its first three and last four characters", "sk-proj-0123456789wxyz", "sk-…wxyz"),
)

// promptStore records puts and can be made to fail.
type promptStore struct {
	puts map[string]llm.Request
	fail error
}

func (p *promptStore) PutPrompt(ctx context.Context, id string, req llm.Request) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.fail != nil {
		return p.fail
	}
	p.puts[id] = req
	return nil
}

func (p *promptStore) Prompt(_ context.Context, id string) (llm.Request, error) {
	if r, ok := p.puts[id]; ok {
		return r, nil
	}
	return llm.Request{}, ports.ErrNotFound
}

// provider remembers the calls it was given.
type provider struct{ calls []string }

func (p *provider) Stream(_ context.Context, call ports.ModelCall) (ports.ModelStream, error) {
	p.calls = append(p.calls, call.CallID)
	return nil, errors.New("no stream in this spec")
}

var _ = Describe("PromptTap.Stream", func() {
	var (
		store *promptStore
		next  *provider
		tap   *control.PromptTap
	)
	BeforeEach(func() {
		store, next = &promptStore{puts: map[string]llm.Request{}}, &provider{}
		tap = control.NewPromptTap(next, store)
	})

	It("keeps the request under the call id and passes the call on", func() {
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "c1", Request: llm.Request{Model: "m"}})
		Expect(store.puts).To(HaveKeyWithValue("c1", llm.Request{Model: "m"}))
		Expect(next.calls).To(Equal([]string{"c1"}))
	})

	It("still makes the call when the prompt cannot be kept", func() {
		store.fail = errors.New("full")
		_, _ = tap.Stream(context.Background(), ports.ModelCall{CallID: "c1"})
		Expect(next.calls).To(Equal([]string{"c1"}))
	})

	It("keeps the prompt of a call whose context is already cancelled", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _ = tap.Stream(ctx, ports.ModelCall{CallID: "c1"})
		Expect(store.puts).To(HaveKey("c1"))
	})
})
