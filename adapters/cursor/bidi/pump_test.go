package bidi_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/bidi"
)

// source hands out frames: those queued are ready at once; after them Next
// waits for one sent on more, and ends (io.EOF) when more is closed.
type source struct {
	mu    sync.Mutex
	ready [][]byte
	more  chan []byte
}

func (s *source) Next(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	if len(s.ready) > 0 {
		f := s.ready[0]
		s.ready = s.ready[1:]
		s.mu.Unlock()
		return f, nil
	}
	s.mu.Unlock()
	select {
	case f, ok := <-s.more:
		if !ok {
			return nil, io.EOF
		}
		return f, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *source) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ready) > 0
}

// flushes is a response that records how many bytes had been written at
// each flush: what reached the connection in one piece.
type flushes struct {
	mu      sync.Mutex
	body    bytes.Buffer
	flushed []int
}

func (f *flushes) Header() http.Header { return http.Header{} }
func (f *flushes) WriteHeader(int)     {}
func (f *flushes) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.body.Write(p)
}

func (f *flushes) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushed = append(f.flushed, f.body.Len())
}

func (f *flushes) at() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.flushed...)
}

var _ = Describe("Writing a stream's frames to the client", func() {
	var (
		src  *source
		resp *flushes
		done chan error
	)

	BeforeEach(func() {
		src = &source{more: make(chan []byte)}
		resp = &flushes{}
		done = make(chan error, 1)
	})

	pump := func() {
		go func() { done <- bidi.Pump(context.Background(), resp, http.NewResponseController(resp), src) }()
	}

	It("sends the frames that are ready together in one flush, and flushes before it waits for the next", func() {
		src.ready = [][]byte{[]byte("one."), []byte("two."), []byte("three.")}
		pump()
		Eventually(resp.at).Should(Equal([]int{len("one.two.three.")}), "one flush for the three, before the wait")

		src.more <- []byte("four.")
		Eventually(resp.at).Should(Equal([]int{len("one.two.three."), len("one.two.three.four.")}), "a frame that came alone is flushed alone, at once")
		close(src.more)
		Eventually(done).Should(Receive(BeNil()))
		Expect(resp.body.String()).To(Equal("one.two.three.four."))
	})

	It("flushes at least every MaxUnflushed bytes while frames keep coming", func() {
		piece := bytes.Repeat([]byte{'x'}, 4<<10)
		for range 100 {
			src.ready = append(src.ready, piece)
		}
		pump()
		close(src.more)
		Eventually(done).Should(Receive(BeNil()))
		at := resp.at()
		Expect(at[len(at)-1]).To(Equal(100*len(piece)), "everything was flushed")
		prev := 0
		for _, n := range at {
			Expect(n-prev).To(BeNumerically("<=", bidi.MaxUnflushed), "no flush carries more than MaxUnflushed")
			prev = n
		}
		Expect(len(at)).To(BeNumerically("<", 100), "but far fewer flushes than frames")
	})
})
