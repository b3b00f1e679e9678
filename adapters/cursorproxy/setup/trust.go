package setup

import (
	"fmt"
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
