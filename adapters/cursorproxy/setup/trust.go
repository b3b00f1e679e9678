package setup

import (
	"fmt"
	"net/url"
	"strings"
)

// TrustInstructions explains how to make Cursor trust the CA certificate at
// caPath on macOS, Windows and Linux. Cursor checks TLS both with the
// system store (http.experimental.systemCertificatesV2) and with Node's
// own list, which only NODE_EXTRA_CA_CERTS extends.
func TrustInstructions(caPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trust Keygate's CA certificate (%s), then restart Cursor:\n\n", caPath)
	fmt.Fprintf(&b, "macOS (login keychain; asks for your password):\n")
	fmt.Fprintf(&b, "  security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db %q\n", caPath)
	fmt.Fprintf(&b, "  launchctl setenv NODE_EXTRA_CA_CERTS %q\n\n", caPath)
	fmt.Fprintf(&b, "Windows (current user's root store; PowerShell):\n")
	fmt.Fprintf(&b, "  certutil -user -addstore Root %q\n", caPath)
	fmt.Fprintf(&b, "  setx NODE_EXTRA_CA_CERTS %q\n\n", caPath)
	fmt.Fprintf(&b, "Linux (Debian/Ubuntu; Fedora: /etc/pki/ca-trust/source/anchors and update-ca-trust):\n")
	fmt.Fprintf(&b, "  sudo cp %q /usr/local/share/ca-certificates/keygate.crt && sudo update-ca-certificates\n", caPath)
	fmt.Fprintf(&b, "  echo 'export NODE_EXTRA_CA_CERTS=%s' >> ~/.profile\n", caPath)
	return b.String()
}

// ProxyTrustNote explains, for an https:// proxy URL, how Cursor comes to
// trust the proxy's own certificate; it is empty for a plain-HTTP proxy.
// Cursor's proxy client (VS Code's) checks that certificate against the
// system store, and its Node processes and cursor-agent against Node's
// list, which NODE_EXTRA_CA_CERTS extends: the same two places as the CA
// above.
func ProxyTrustNote(proxyURL string) string {
	u, err := url.Parse(proxyURL)
	if err != nil || u.Scheme != "https" {
		return ""
	}
	return fmt.Sprintf("The proxy speaks TLS (%s). Cursor checks its certificate in the system certificate store and,\n"+
		"in its Node processes and cursor-agent, in Node's list extended by NODE_EXTRA_CA_CERTS. A certificate\n"+
		"from a public CA needs nothing more; one your company's CA signed is trusted once that CA is, as below.\n"+
		"For cursor-agent, set HTTPS_PROXY to the same URL and NODE_USE_ENV_PROXY=1.\n", u.Host)
}
