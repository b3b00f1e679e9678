package control_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing/fstest"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/control"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Routes with a Guard", func() {
	var server *httptest.Server
	BeforeEach(func() {
		deny := func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "log in first", http.StatusUnauthorized) })
		}
		mux := http.NewServeMux()
		for p, h := range control.Routes(control.Options{Guard: deny, Console: fstest.MapFS{"index.html": {Data: []byte("x")}}}) {
			mux.Handle(p, h)
		}
		server = httptest.NewServer(mux)
		DeferCleanup(server.Close)
	})

	It("puts every service behind the guard", func() {
		_, err := controlv1connect.NewSettingServiceClient(server.Client(), server.URL).
			GetSettings(context.Background(), connect.NewRequest(&controlv1.GetSettingsRequest{}))
		Expect(err).To(HaveConnectCode(connect.CodeUnauthenticated))
	})

	It("puts the console behind the guard", func() {
		resp, err := server.Client().Get(server.URL + "/")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
	})
})
