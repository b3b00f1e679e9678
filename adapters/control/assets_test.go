package control_test

import (
	"io"
	"net/http"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/control"
)

var _ = Describe("Assets", func() {
	var a *api
	BeforeEach(func() { a = newAPI() })
	get := func(path string) (int, string, http.Header) {
		resp, err := a.server.Client().Get(a.server.URL + path)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}

	DescribeTable("serves the console",
		func(path string, code int, body string) {
			got, b, _ := get(path)
			Expect(got).To(Equal(code))
			Expect(b).To(ContainSubstring(body))
		},
		Entry("the root is index.html", "/", 200, "console"),
		Entry("a client-side route falls back to index.html", "/calls/abc", 200, "console"),
		Entry("a built asset is served as is", "/assets/app-1.js", 200, "console.log(1)"),
		Entry("a missing file with an extension is 404", "/assets/gone.js", 404, ""),
	)

	It("caches hashed assets for long and index.html never", func() {
		_, _, h := get("/assets/app-1.js")
		Expect(h.Get("Cache-Control")).To(ContainSubstring("immutable"))
		_, _, h = get("/")
		Expect(h.Get("Cache-Control")).To(Equal("no-store"))
	})

	It("explains how to build the console when the binary has none", func() {
		rec := newRecorder()
		control.Assets(fstest.MapFS{}).ServeHTTP(rec, mustRequest("GET", "/"))
		Expect(rec.Body.String()).To(ContainSubstring("npm run build"))
	})
})
