package control_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
	"keygate/ports"
)

type memSettings map[string]json.RawMessage

func (m memSettings) Setting(_ context.Context, name string) (json.RawMessage, error) {
	if v, ok := m[name]; ok {
		return v, nil
	}
	return nil, ports.ErrNotFound
}

func (m memSettings) PutSetting(_ context.Context, name string, v json.RawMessage) error {
	m[name] = v
	return nil
}

func (m memSettings) DeleteSetting(_ context.Context, name string) error {
	delete(m, name)
	return nil
}

// idle is an eraser over a fixed number of idle conversations; some were
// erased by another replica meanwhile.
type idle struct {
	left    []string
	gone    map[string]bool
	erased  []string
	cutoffs []time.Time
}

func (e *idle) StaleConversations(_ context.Context, cutoff time.Time, limit int) ([]string, error) {
	e.cutoffs = append(e.cutoffs, cutoff)
	return e.left[:min(limit, len(e.left))], nil
}

func (e *idle) EraseConversation(_ context.Context, id string) error {
	for i, l := range e.left {
		if l == id {
			e.left = append(e.left[:i:i], e.left[i+1:]...)
			break
		}
	}
	if e.gone[id] {
		return fmt.Errorf("erase %s: %w", id, ports.ErrNotFound)
	}
	e.erased = append(e.erased, id)
	return nil
}

func (*idle) PurgeDetails(context.Context, time.Time) (int, error) { return 0, nil }

var _ = Describe("Retention of conversations", func() {
	now := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	sweep := func(days, n int, gone ...string) (*idle, int) {
		GinkgoHelper()
		ctx := context.Background()
		s := control.NewSettings(memSettings{})
		_, err := s.Update(ctx, control.ServiceSettings{ConversationRetentionDays: days})
		Expect(err).NotTo(HaveOccurred())
		e := &idle{gone: map[string]bool{}}
		for i := range n {
			e.left = append(e.left, fmt.Sprintf("conv-%04d", i))
		}
		for _, g := range gone {
			e.gone[g] = true
		}
		r := control.NewRetention(s, e, func() time.Time { return now })
		r.EraseConversationsWith(e)
		erased, err := r.Sweep(ctx)
		Expect(err).NotTo(HaveOccurred())
		return e, erased
	}

	It("keeps conversations when the setting is 0", func() {
		e, n := sweep(0, 5)
		Expect(n).To(BeZero())
		Expect(e.erased).To(BeEmpty())
	})

	It("erases those idle longer than the setting, skipping one another replica erased", func() {
		e, n := sweep(30, 5, "conv-0002")
		Expect(e.cutoffs[0]).To(Equal(now.Add(-30 * 24 * time.Hour)))
		Expect(e.erased).To(Equal([]string{"conv-0000", "conv-0001", "conv-0003", "conv-0004"}))
		Expect(n).To(Equal(4))
	})

	It("erases in bounded batches, leaving the rest to the next sweep", func() {
		total := control.EraseBatch*control.EraseBatches + 7
		e, n := sweep(1, total)
		Expect(n).To(Equal(control.EraseBatch * control.EraseBatches))
		Expect(e.cutoffs).To(HaveLen(control.EraseBatches))
		Expect(e.left).To(HaveLen(7))
	})

	It("refuses a setting out of bounds", func() {
		_, err := control.NewSettings(memSettings{}).Update(context.Background(), control.ServiceSettings{ConversationRetentionDays: control.MaxConversationRetentionDays + 1})
		Expect(err).To(MatchError(ContainSubstring("conversation_retention_days")))
	})
})
