package protocol_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/protocol"
	"keygate/ports"
)

var _ = Describe("Clients handed to a cloud SDK (CredentialsFor)", func() {
	var srv *httptest.Server

	BeforeEach(func() {
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, err := strconv.ParseInt(r.URL.Query().Get("bytes"), 10, 64)
			if err != nil {
				http.Error(w, "bytes?", http.StatusBadRequest)
				return
			}
			_, _ = io.Copy(w, bytes.NewReader(bytes.Repeat([]byte("a"), int(n))))
		}))
		DeferCleanup(srv.Close)
	})

	read := func(c *http.Client, n int64) (int, error) {
		resp, err := c.Get(srv.URL + "/?bytes=" + strconv.FormatInt(n, 10))
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}

	It("reads an answer of up to MaxCredentialBody whole", func() {
		c := protocol.CredentialsFor("", ports.CloudSettings{Source: ports.CredentialDefault}, srv.Client(), nil)
		n, err := read(c.HTTP, protocol.MaxCredentialBody)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(protocol.MaxCredentialBody))
	})

	It("fails an answer past MaxCredentialBody instead of buffering the rest", func() {
		c := protocol.CredentialsFor("", ports.CloudSettings{Source: ports.CredentialDefault}, srv.Client(), nil)
		n, err := read(c.HTTP, 4*protocol.MaxCredentialBody)
		Expect(err).To(MatchError(protocol.ErrBodyTooLarge))
		Expect(err.Error()).To(ContainSubstring("over 16777216 bytes"))
		Expect(n).To(Equal(protocol.MaxCredentialBody))
	})

	It("bounds the metadata client too, and hands it out only for the instance-role source", func() {
		c := protocol.CredentialsFor("", ports.CloudSettings{Source: ports.CredentialDefault}, srv.Client(), srv.Client())
		Expect(c.Metadata).To(BeNil())
		c = protocol.CredentialsFor("", ports.CloudSettings{Source: ports.CredentialInstanceRole}, srv.Client(), srv.Client())
		Expect(c.Metadata).NotTo(BeNil())
		_, err := read(c.Metadata, protocol.MaxCredentialBody+1)
		Expect(err).To(MatchError(protocol.ErrBodyTooLarge))
	})

	It("keeps an absent client absent", func() {
		c := protocol.CredentialsFor("", ports.CloudSettings{Source: ports.CredentialInstanceRole}, nil, nil)
		Expect(c.HTTP).To(BeNil())
		Expect(c.Metadata).To(BeNil())
	})
})
