package httpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/httpserver"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// slowTest is a ModelService whose connection test streams five updates,
// 100 ms apart: longer than the server's read timeout in these specs.
type slowTest struct {
	controlv1connect.UnimplementedModelServiceHandler
}

func (slowTest) TestModel(ctx context.Context, _ *connect.Request[controlv1.TestModelRequest], out *connect.ServerStream[controlv1.TestModelResponse]) error {
	for i := range 5 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if err := out.Send(&controlv1.TestModelResponse{Phase: controlv1.TestPhase_TEST_PHASE_STREAMING, ReceivedChars: int64(i)}); err != nil {
			return err
		}
	}
	return out.Send(&controlv1.TestModelResponse{Phase: controlv1.TestPhase_TEST_PHASE_DONE})
}

// clientPatience is how long a spec's client waits for the server to act
// on a timeout of a few hundred milliseconds; it only fails the spec when
// the server never acts.
const clientPatience = 10 * time.Second

var _ = Describe("Server timeouts (the console and control API listener)", func() {
	var base string

	BeforeEach(func(ctx SpecContext) {
		path, models := controlv1connect.NewModelServiceHandler(slowTest{})
		s := httpserver.New(zap.NewNop(), httpserver.Options{
			Addr:            "127.0.0.1:0",
			ShutdownTimeout: time.Second,
			ReadTimeout:     250 * time.Millisecond,
			IdleTimeout:     250 * time.Millisecond,
			Routes: map[string]http.Handler{
				path: models,
				"POST /echo": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, err := io.ReadAll(r.Body)
					if err != nil {
						http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
						return
					}
					_, _ = w.Write(body)
				}),
			},
		})
		runCtx, cancel := context.WithCancel(context.Background())
		addrs := make(chan net.Addr, 1)
		done := make(chan error, 1)
		go func() { done <- s.Run(runCtx, func(a net.Addr) { addrs <- a }) }()
		DeferCleanup(func() { cancel(); Eventually(done, time.Minute).Should(Receive()) })
		var addr net.Addr
		Eventually(addrs).Should(Receive(&addr))
		base = addr.String()
	})

	// dial opens a raw connection that gives up after clientPatience.
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", base)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		Expect(conn.SetDeadline(time.Now().Add(clientPatience))).To(Succeed())
		return conn
	}

	It("cuts a request that sends 1 byte of a 200 kB body and then nothing", func() {
		conn := dial()
		_, err := fmt.Fprint(conn, "POST /echo HTTP/1.1\r\nHost: keygate\r\nContent-Length: 200000\r\n\r\nx")
		Expect(err).NotTo(HaveOccurred())
		_, err = io.Copy(io.Discard, conn)
		Expect(err).NotTo(HaveOccurred(), "the server closes the connection; the client did not have to give up")
	})

	It("closes a keep-alive connection that stays idle after its request", func() {
		conn := dial()
		_, err := fmt.Fprint(conn, "POST /echo HTTP/1.1\r\nHost: keygate\r\nContent-Length: 2\r\n\r\nhi")
		Expect(err).NotTo(HaveOccurred())
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Close).To(BeFalse(), "the connection is kept alive")
		_, _ = io.Copy(io.Discard, resp.Body)
		_, err = io.Copy(io.Discard, r)
		Expect(err).NotTo(HaveOccurred(), "the server closes the idle connection; the client did not have to give up")
	})

	It("streams a connection test to its end, long past the read timeout", func(ctx SpecContext) {
		client := controlv1connect.NewModelServiceClient(http.DefaultClient, "http://"+base)
		stream, err := client.TestModel(ctx, connect.NewRequest(&controlv1.TestModelRequest{Id: "m"}))
		Expect(err).NotTo(HaveOccurred())
		defer stream.Close()
		var phases []string
		for stream.Receive() {
			phases = append(phases, stream.Msg().GetPhase().String())
		}
		Expect(stream.Err()).NotTo(HaveOccurred())
		Expect(phases).To(HaveLen(6))
		Expect(strings.Join(phases, " ")).To(HaveSuffix("TEST_PHASE_DONE"))
	})
})
