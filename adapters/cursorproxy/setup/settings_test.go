package setup_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tailscale/hujson"

	"keygate/adapters/cursorproxy/setup"
)

const proxyURL = "http://keygate:tok@127.0.0.1:7879"

// userSettings is a settings.json as people keep them: comments, a nested
// object, a key setup also owns, and a trailing comma.
const userSettings = `// My Cursor settings
{
    // keep the font small
    "editor.fontSize": 12,
    /* proxy from the old VPN */
    "http.proxy": "http://old-vpn:8080",
    "files.exclude": {
        "**/.git": true, // hide git
    },
    "workbench.colorTheme": "Default Dark+",
}
`

// decoded parses JSONC settings into plain values.
func decoded(data []byte) map[string]any {
	std, err := hujson.Standardize(data)
	Expect(err).NotTo(HaveOccurred())
	var m map[string]any
	Expect(json.Unmarshal(std, &m)).To(Succeed())
	return m
}

var _ = Describe("setup.Apply and setup.Undo", func() {
	var path string

	BeforeEach(func() {
		path = filepath.Join(GinkgoT().TempDir(), "Cursor", "User", "settings.json")
	})

	read := func() []byte {
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		return data
	}

	When("Cursor has no settings file yet", func() {
		It("creates it, readable by its owner only, with exactly the four keys", func() {
			_, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			Expect(decoded(read())).To(Equal(map[string]any{
				"http.proxy":                             proxyURL,
				"http.proxySupport":                      "on",
				"cursor.general.disableHttp2":            true,
				"http.experimental.systemCertificatesV2": true,
			}))
			st, err := os.Stat(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		})

		It("leaves it missing on undo", func() {
			Expect(setup.Undo(path)).To(BeEmpty())
			Expect(path).NotTo(BeAnExistingFile())
		})
	})

	When("the user has settings with comments", func() {
		BeforeEach(func() {
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			Expect(os.WriteFile(path, []byte(userSettings), 0o644)).To(Succeed())
		})

		It("sets the proxy keys and keeps every comment, key and the file mode", func() {
			changes, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			Expect(changes).To(ContainElement(setup.Change{Key: "http.proxy", Old: `"http://old-vpn:8080"`, New: `"` + proxyURL + `"`}))
			out := string(read())
			for _, comment := range []string{"// My Cursor settings", "// keep the font small", "/* proxy from the old VPN */", "// hide git"} {
				Expect(out).To(ContainSubstring(comment))
			}
			m := decoded(read())
			Expect(m).To(HaveKeyWithValue("editor.fontSize", BeNumerically("==", 12)))
			Expect(m).To(HaveKeyWithValue("files.exclude", HaveKeyWithValue("**/.git", true)))
			Expect(m).To(HaveKeyWithValue("http.proxy", proxyURL))
			Expect(m).To(HaveKeyWithValue("cursor.general.disableHttp2", true))
			st, _ := os.Stat(path)
			Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o644)))
		})

		It("indents the keys it adds like the file's own", func() {
			_, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(read())).To(ContainSubstring("\n    \"http.proxySupport\": \"on\""))
		})

		It("is idempotent", func() {
			_, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			once := read()
			_, err = setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			Expect(read()).To(Equal(once))
		})

		It("removes exactly the keys it wrote on undo, keeping the user's comments", func() {
			_, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			changes, err := setup.Undo(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(changes).To(HaveLen(4))
			m := decoded(read())
			Expect(m).To(HaveLen(3))
			Expect(m).To(HaveKey("editor.fontSize"))
			Expect(m).To(HaveKey("files.exclude"))
			Expect(m).To(HaveKey("workbench.colorTheme"))
			Expect(string(read())).To(ContainSubstring("/* proxy from the old VPN */\n    \"files.exclude\""))
		})
	})

	When("setup ran on a file without trailing commas", func() {
		It("undoes back to the very same bytes", func() {
			original := "{\n\t\"editor.fontSize\": 12,\n\t\"editor.tabSize\": 2\n}\n"
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			Expect(os.WriteFile(path, []byte(original), 0o644)).To(Succeed())
			_, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(read())).To(ContainSubstring("\n\t\"http.proxy\": "))
			_, err = setup.Undo(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(read())).To(Equal(original))
		})
	})

	When("the settings are not an object", func() {
		It("refuses to touch them", func() {
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			Expect(os.WriteFile(path, []byte(`["not", "settings"]`), 0o644)).To(Succeed())
			_, err := setup.Apply(path, proxyURL)
			Expect(err).To(MatchError(setup.ErrNotObject))
			Expect(string(read())).To(Equal(`["not", "settings"]`))
		})
	})

	When("the settings file is a symlink into a dotfiles repository", func() {
		It("edits the target and keeps the link", func() {
			target := filepath.Join(GinkgoT().TempDir(), "dotfiles-settings.json")
			Expect(os.WriteFile(target, []byte("{}"), 0o644)).To(Succeed())
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			Expect(os.Symlink(target, path)).To(Succeed())
			_, err := setup.Apply(path, proxyURL)
			Expect(err).NotTo(HaveOccurred())
			st, err := os.Lstat(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Mode() & os.ModeSymlink).NotTo(BeZero())
			data, err := os.ReadFile(target)
			Expect(err).NotTo(HaveOccurred())
			Expect(decoded(data)).To(HaveKeyWithValue("http.proxy", proxyURL))
		})
	})
})

var _ = DescribeTable("setup.SettingsPath",
	func(goos string, env map[string]string, home, want string) {
		got, err := setup.SettingsPath(goos, func(k string) string { return env[k] }, home)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(want))
	},
	Entry("macOS keeps it under Application Support", "darwin", nil, "/Users/ada",
		"/Users/ada/Library/Application Support/Cursor/User/settings.json"),
	Entry("Windows keeps it under APPDATA", "windows", map[string]string{"APPDATA": "/appdata"}, "/home",
		"/appdata/Cursor/User/settings.json"),
	Entry("Linux honours XDG_CONFIG_HOME", "linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/home/ada",
		"/xdg/Cursor/User/settings.json"),
	Entry("Linux falls back to ~/.config", "linux", nil, "/home/ada", "/home/ada/.config/Cursor/User/settings.json"),
)

var _ = DescribeTable("setup.ProxyURL",
	func(addr, token, want string) {
		got, err := setup.ProxyURL(addr, token)
		if want == "" {
			Expect(err).To(MatchError(setup.ErrBadProxy))
			return
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(want))
	},
	Entry("a laptop proxy has no credentials", "127.0.0.1:7879", "", "http://127.0.0.1:7879"),
	Entry("a company token becomes Basic credentials, escaped", "https://proxy.corp:7879", "t/k n", "https://keygate:t%2Fk%20n@proxy.corp:7879"),
	Entry("a token may go to a plain-HTTP proxy on this machine (a sidecar)", "127.0.0.1:7879", "tok", "http://keygate:tok@127.0.0.1:7879"),
	Entry("other schemes are refused", "socks5://proxy.corp:1080", "", ""),
	Entry("a URL with a path is refused", "http://proxy.corp:7879/x", "", ""),
)

var _ = DescribeTable("setup.ProxyURL refuses to send a gateway token in clear text to another machine",
	func(addr string) {
		_, err := setup.ProxyURL(addr, "tok")
		Expect(err).To(MatchError(setup.ErrClearTextToken))
		Expect(err).To(MatchError(ContainSubstring("https://")))
	},
	Entry("a bare host:port is plain HTTP", "proxy.corp:7879"),
	Entry("an explicit http:// URL", "http://proxy.corp:7879"),
	Entry("an address on the local network", "http://10.0.0.7:7879"),
)

var _ = Describe("setup.TrustInstructions", func() {
	It("covers macOS, Windows and Linux and Node's own certificate list", func() {
		text := setup.TrustInstructions("/data/ca.crt")
		Expect(text).To(ContainSubstring("security add-trusted-cert"))
		Expect(text).To(ContainSubstring("certutil -user -addstore Root"))
		Expect(text).To(ContainSubstring("update-ca-certificates"))
		Expect(text).To(ContainSubstring("NODE_EXTRA_CA_CERTS"))
	})
})

var _ = Describe("Current", func() {
	It("reads what setup wrote, absent keys as empty, without changing the file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "settings.json")
		Expect(os.WriteFile(path, []byte(userSettings), 0o600)).To(Succeed())
		v, err := setup.Current(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(HaveKeyWithValue("http.proxy", `"http://old-vpn:8080"`))
		Expect(v).To(HaveKeyWithValue("cursor.general.disableHttp2", ""))
		Expect(os.ReadFile(path)).To(Equal([]byte(userSettings)))

		_, err = setup.Apply(path, proxyURL)
		Expect(err).NotTo(HaveOccurred())
		v, err = setup.Current(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal(map[string]string{"http.proxy": `"` + proxyURL + `"`, "http.proxySupport": `"on"`,
			"cursor.general.disableHttp2": "true", "http.experimental.systemCertificatesV2": "true"}))
	})

	It("reports a missing file as not existing, and creates nothing", func() {
		path := filepath.Join(GinkgoT().TempDir(), "Cursor", "settings.json")
		_, err := setup.Current(path)
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(filepath.Dir(path)).NotTo(BeADirectory())
	})
})
