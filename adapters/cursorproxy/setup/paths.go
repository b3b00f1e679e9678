package setup

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
)

// ErrNoSettingsDir means the environment names no directory for Cursor's
// settings (no APPDATA on Windows, no home directory elsewhere).
var ErrNoSettingsDir = errors.New("cannot locate Cursor's settings directory")

// SettingsPath is where Cursor keeps its user settings on goos
// (runtime.GOOS): under Application Support on macOS, %APPDATA% on Windows,
// and $XDG_CONFIG_HOME (default ~/.config) elsewhere.
func SettingsPath(goos string, getenv func(string) string, home string) (string, error) {
	var base string
	switch goos {
	case "darwin":
		if home != "" {
			base = filepath.Join(home, "Library", "Application Support")
		}
	case "windows":
		base = getenv("APPDATA")
	default:
		base = getenv("XDG_CONFIG_HOME")
		if base == "" && home != "" {
			base = filepath.Join(home, ".config")
		}
	}
	if base == "" {
		return "", ErrNoSettingsDir
	}
	return filepath.Join(base, "Cursor", "User", "settings.json"), nil
}

// ProxyURL is the http.proxy value for the proxy at addr: host:port for a
// plain-HTTP proxy (a laptop's loopback one), or a full http:// or
// https:// URL (a company proxy that speaks TLS). A non-empty token
// (company mode) becomes the password of the credentials, which Cursor
// sends as Basic Proxy-Authorization; it is only ever put into an https://
// URL or one on this machine (ErrClearTextToken otherwise).
func ProxyURL(addr, token string) (string, error) {
	u := &url.URL{Scheme: "http", Host: addr}
	if strings.Contains(addr, "://") {
		var err error
		if u, err = url.Parse(addr); err != nil {
			return "", fmt.Errorf("proxy URL %q: %w", addr, err)
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return "", fmt.Errorf("proxy %q: %w", addr, ErrBadProxy)
	}
	if token != "" {
		if u.Scheme == "http" && !isLoopback(u.Hostname()) {
			return "", fmt.Errorf("proxy %q: %w", addr, ErrClearTextToken)
		}
		u.User = url.UserPassword("keygate", token)
	}
	return u.String(), nil
}

// ErrBadProxy means the proxy address is neither host:port nor an http(s) URL
// of a host without a path.
var ErrBadProxy = errors.New("want host:port, http://host:port or https://host:port")

// ErrClearTextToken means a gateway token would go to a proxy on another
// machine in plain HTTP, readable by anyone on the network path.
var ErrClearTextToken = errors.New("a gateway token goes to a proxy on another machine only over TLS: " +
	"pass the https:// proxy URL the Keygate console shows under Connect Cursor")

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
