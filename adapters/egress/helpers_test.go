package egress_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/ports"
)

// server is a loopback HTTP server that counts the connections it accepted
// and records the requests it got.
type server struct {
	*httptest.Server
	accepted atomic.Int32
	mu       sync.Mutex
	requests []*http.Request
}

func newServer(h http.HandlerFunc) *server {
	s := &server{}
	if h == nil {
		h = func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }
	}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(r.Context()))
		s.mu.Unlock()
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.accepted.Add(1)
		}
	}
	s.Start()
	DeferCleanup(s.Close)
	return s
}

func (s *server) Requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// port is the server's port as a string.
func (s *server) port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

// emptyEnv is a process environment without proxy variables.
func emptyEnv(string) string { return "" }

// newPolicy builds a policy with an empty proxy environment unless o says
// otherwise.
func newPolicy(o egress.Options) *egress.Policy {
	GinkgoHelper()
	if o.Getenv == nil {
		o.Getenv = emptyEnv
	}
	p, err := egress.New(context.Background(), o)
	Expect(err).NotTo(HaveOccurred())
	return p
}

// expectRefused asserts err is the policy's refusal of dest, with the
// advice an operator needs.
func expectRefused(err error, dest, reason string) {
	GinkgoHelper()
	_ = refusal(err, dest, reason)
}

// refusal is expectRefused returning the refusal, for specs that look
// further into it.
func refusal(err error, dest, reason string) *egress.RefusedError {
	GinkgoHelper()
	Expect(err).To(HaveOccurred(), "expected %s to be refused", dest)
	Expect(err).To(MatchError(egress.ErrRefused))
	Expect(err).To(MatchError(ports.ErrDestinationRefused), "use cases recognise it without importing egress")
	var refused *egress.RefusedError
	Expect(errors.As(err, &refused)).To(BeTrue(), "a *egress.RefusedError: %v", err)
	Expect(refused.Error()).To(ContainSubstring(dest))
	Expect(refused.Error()).To(ContainSubstring(reason))
	return refused
}

// localInterfaceAddr is an address of a non-loopback interface of this
// machine, which a listener on 0.0.0.0 or :: also answers on.
func localInterfaceAddr() netip.Addr {
	GinkgoHelper()
	addrs, err := net.InterfaceAddrs()
	Expect(err).NotTo(HaveOccurred())
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, _ := netip.AddrFromSlice(n.IP)
		ip = ip.Unmap()
		if ip.IsValid() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() && ip.Is4() {
			return ip
		}
	}
	Fail("this spec needs a non-loopback IPv4 interface address")
	return netip.Addr{}
}
