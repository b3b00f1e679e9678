package upstream

import (
	"fmt"
	"net/url"
	"os"

	"golang.org/x/net/http/httpproxy"
)

// ProxyDirect as Options.Proxy turns outbound proxying off, whatever the
// environment says.
const ProxyDirect = "direct"

// proxyFunc picks the outbound proxy for a URL: the explicit setting for
// every host, or else the standard environment variables (upper case
// first, like curl and Go). NO_PROXY applies in both cases; loopback
// targets never use a proxy.
func proxyFunc(explicit string, getenv func(string) string) (func(*url.URL) (*url.URL, error), error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	cfg := &httpproxy.Config{
		HTTPProxy:  env("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: env("HTTPS_PROXY", "https_proxy"),
		NoProxy:    env("NO_PROXY", "no_proxy"),
	}
	switch explicit {
	case "":
	case ProxyDirect:
		return func(*url.URL) (*url.URL, error) { return nil, nil }, nil
	default:
		u, err := url.Parse(explicit)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("outbound proxy %q: want http://host:port or https://host:port", explicit)
		}
		cfg.HTTPProxy, cfg.HTTPSProxy = explicit, explicit
	}
	return cfg.ProxyFunc(), nil
}
