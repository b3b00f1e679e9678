package frame_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/frame"
)

// bomb is a gzip stream of 16 members of 64 MiB of zeros each: 1 GiB
// inflated from about 1 MiB.
var bomb = func() []byte {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	return bytes.Repeat(member.Bytes(), 16)
}()

// allocated returns the bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var _ = Describe("Inflating client payloads (gzip bombs)", func() {
	const limit = 8 << 20

	It("stops at the first byte past the limit and holds no more than the limit and one chunk of output", func() {
		var err error
		alloc := allocated(func() { _, err = frame.Gunzip(bomb, limit) })
		var tooLarge *frame.TooLargeError
		Expect(errors.As(err, &tooLarge)).To(BeTrue())
		Expect(tooLarge.Size).To(BeEquivalentTo(limit+1), "not one byte inflated beyond the first past the limit")
		Expect(alloc).To(BeNumerically("<=", limit+2<<20), "a growing buffer would have copied the output over and over")
	})

	It("returns an accepted payload whole when it spans many chunks", func() {
		plain := bytes.Repeat([]byte("0123456789abcdef"), 300_000) // 4.8 MB, five chunks
		out, err := frame.Gunzip(gz(plain), limit)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(plain))
	})

	DescribeTable("refuses a bomb on every inbound path before inflating more than the limit",
		func(read func(in *frame.Inflater) error, refusedAt int) {
			var tooLarge *frame.TooLargeError
			Expect(errors.As(read(frame.NewInflater(1)), &tooLarge)).To(BeTrue())
			Expect(tooLarge.Size).To(BeEquivalentTo(refusedAt))
		},
		Entry("a Connect envelope flagged compressed on a stream", func(in *frame.Inflater) error {
			_, err := frame.NewReader(bytes.NewReader(frame.Encode(frame.FlagCompressed, bomb)), limit).Inflating(in).Next(context.Background())
			return err
		}, limit+1),
		Entry("a unary body with Content-Encoding gzip", func(in *frame.Inflater) error {
			_, err := frame.UnaryBody(context.Background(), bytes.NewReader(bomb), "gzip", frame.Limits{MaxSize: limit, Inflater: in})
			return err
		}, limit+frame.HeaderSize+1),
		Entry("a unary body enveloped and flagged compressed", func(in *frame.Inflater) error {
			_, err := frame.UnaryBody(context.Background(), bytes.NewReader(frame.Encode(frame.FlagCompressed, bomb)), "", frame.Limits{MaxSize: limit, Inflater: in})
			return err
		}, limit+1),
	)

	It("inflates no more payloads at once than it has slots, and a request waits for one no longer than its context", func(ctx SpecContext) {
		in := frame.NewInflater(1)
		release := frame.TakeSlot(in)

		By("giving up with ErrInflateBusy when the request's context ends first")
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := in.Gunzip(short, gz([]byte("hello")), limit)
		Expect(err).To(MatchError(frame.ErrInflateBusy))
		Expect(err).To(MatchError(context.DeadlineExceeded))

		By("inflating once the slot is free")
		done := make(chan []byte, 1)
		go func() {
			out, _ := in.Gunzip(context.Background(), gz([]byte("hello")), limit)
			done <- out
		}()
		Consistently(done, 100*time.Millisecond).ShouldNot(Receive(), "it waits while the only slot is taken")
		release()
		Eventually(done).Should(Receive(Equal([]byte("hello"))))
	})

	It("answers a unary request that found no slot in time with unavailable", func() {
		in := frame.NewInflater(1)
		defer frame.TakeSlot(in)()
		h := frame.NormalizeUnary(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			Fail("the handler must not run")
		}), frame.Limits{Inflater: in})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/x", bytes.NewReader(gz([]byte{0x0a, 0x00})))
		req.Header.Set("Content-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		Expect(rec.Body.String()).To(ContainSubstring(`"code":"unavailable"`))
		Expect(rec.Body.String()).To(ContainSubstring("busy inflating"))
	})
})

var _ = Describe("Reading request bodies within a time", func() {
	// trickle opens a connection to url, sends the headers of a POST that
	// announces a 200 kB body and then only its first byte, and returns
	// what the server answers before it closes the connection (the client
	// gives up after 20 s, which the server's 200 ms must beat).
	trickle := func(url string) (string, error) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		Expect(err).NotTo(HaveOccurred())
		defer conn.Close()
		_, err = fmt.Fprintf(conn, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/proto\r\nContent-Length: 200000\r\n\r\n\x0a")
		Expect(err).NotTo(HaveOccurred())
		Expect(conn.SetReadDeadline(time.Now().Add(20 * time.Second))).To(Succeed())
		return readAnswer(conn)
	}

	It("cuts a unary body that trickles in", func() {
		h := frame.NormalizeUnary(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			Fail("the handler must not run")
		}), frame.Limits{ReadTimeout: 200 * time.Millisecond})
		srv := httptest.NewServer(h)
		defer srv.Close()
		answer, err := trickle(srv.URL)
		Expect(err).NotTo(HaveOccurred(), "the server, not the client, ends the request")
		Expect(answer).To(ContainSubstring("deadline_exceeded"))
		Expect(answer).To(ContainSubstring("request body not received in time"))
	})

	It("does not cut the response that follows the body, however long it streams", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, body, err := frame.DecodeBody(w, r, frame.Limits{ReadTimeout: 100 * time.Millisecond})
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			rc := http.NewResponseController(w)
			for i := range 5 {
				time.Sleep(100 * time.Millisecond) // five times the body's read timeout in all
				fmt.Fprintf(w, "%s %d\n", body, i)
				_ = rc.Flush()
			}
		}))
		defer srv.Close()
		resp, err := http.Post(srv.URL, "application/proto", strings.NewReader("hi"))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		all, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(all)).To(Equal("hi 0\nhi 1\nhi 2\nhi 3\nhi 4\n"))
	})
})

// readAnswer reads what the server sends until it closes the connection.
func readAnswer(conn net.Conn) (string, error) {
	var out strings.Builder
	_, err := io.Copy(&out, bufio.NewReader(conn))
	return out.String(), err
}
