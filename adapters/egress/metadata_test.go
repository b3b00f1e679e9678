package egress_test

import (
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
)

var _ = Describe("The instance metadata client", func() {
	It("reaches nothing but the metadata service, even where the allow-list and the laptop open more", func() {
		reached := false
		srv := newServer(func(http.ResponseWriter, *http.Request) { reached = true })
		c := newPolicy(egress.Options{Allow: []string{"127.0.0.0/8"}, Laptop: true}).InstanceMetadataClient()
		for _, u := range []string{srv.URL, "http://example.com/", "http://169.254.169.254:8080/latest/api/token", "http://169.254.170.2/v2/credentials"} {
			_, err := c.Get(u)
			var refused *egress.RefusedError
			Expect(errors.As(err, &refused)).To(BeTrue(), u)
			Expect(refused.Reason).To(ContainSubstring("only the instance metadata service"))
		}
		Expect(reached).To(BeFalse())
	})

	It("is the only client the policy lets reach 169.254.169.254", func() {
		_, err := newPolicy(egress.Options{}).HTTPClient().Get("http://169.254.169.254/latest/meta-data/")
		var refused *egress.RefusedError
		Expect(errors.As(err, &refused)).To(BeTrue())
		Expect(refused.Reason).To(ContainSubstring("link-local"))
	})
})
