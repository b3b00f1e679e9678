package threatspec_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/auth"
	"keygate/app"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Threat 9: a member makes the trusted-header sign-in ambiguous to become someone else", Ordered, func() {
	var k *stack
	BeforeAll(func() { k = startKeygate() })

	// me asks /auth/me with the given header lines (name, value pairs).
	me := func(lines ...string) (int, string) {
		GinkgoHelper()
		req, err := http.NewRequest(http.MethodGet, k.Base+"/auth/me", nil)
		Expect(err).NotTo(HaveOccurred())
		for i := 0; i+1 < len(lines); i += 2 {
			req.Header[lines[i]] = append(req.Header[lines[i]], lines[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		return resp.StatusCode, body(resp)
	}

	It("answers 400 to a second groups header naming the admin group, and mallory stays no admin", func() {
		status, text := me(userHeader, mallory.id, groupsHeader, "staff", "X-TEST-GROUPS", adminGroup)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(text).To(ContainSubstring(groupsHeader))

		status, text = me(userHeader, mallory.id, groupsHeader, "staff")
		Expect(status).To(Equal(http.StatusOK))
		var who struct{ Role string }
		Expect(json.Unmarshal([]byte(text), &who)).To(Succeed())
		Expect(who.Role).To(Equal("member"))
	})

	It("answers 400 to a second user header, so the first one cannot be smuggled past the front", func() {
		status, _ := me(userHeader, root.id, userHeader, mallory.id, groupsHeader, "staff")
		Expect(status).To(Equal(http.StatusBadRequest))
		status, _ = me(userHeader, root.id+", "+mallory.id, groupsHeader, "staff")
		Expect(status).To(Equal(http.StatusBadRequest))
	})

	It("refuses a configuration change made with an ambiguous identity", func() {
		req, err := http.NewRequest(http.MethodPost, k.Base+controlv1connect.SettingServiceUpdateSettingsProcedure,
			jsonBody(&controlv1.UpdateSettingsRequest{Settings: &controlv1.Settings{DetailedMode: true}}))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "application/json")
		req.Header[userHeader] = []string{mallory.id}
		req.Header[groupsHeader] = []string{"staff", adminGroup}
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), body(resp))
	})
})

var _ = Describe("Threat 9b: an operator trusts every address for the identity headers", func() {
	It("refuses to start with a trusted range that covers everything, and says why", func() {
		for _, everything := range []string{"0.0.0.0/0", "::/0", "10.0.0.0/8,0.0.0.0/1"} {
			cfg := config.Default()
			cfg.Auth = config.Auth{Mode: string(auth.ModeHeader), UserHeader: userHeader}
			for _, p := range strings.Split(everything, ",") {
				cfg.Auth.TrustedProxies = append(cfg.Auth.TrustedProxies, netip.MustParsePrefix(p))
			}
			cfg.DataDir, cfg.Listen, cfg.ProxyListen = GinkgoT().TempDir(), "127.0.0.1:0", ""
			cfg.LogLevel = "error"
			_, cleanup, err := app.Initialize(context.Background(), cfg)
			if cleanup != nil {
				cleanup()
			}
			Expect(err).To(MatchError(ContainSubstring("trusted")), everything)
		}
	})
})
