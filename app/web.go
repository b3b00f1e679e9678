package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.uber.org/zap"

	"keygate/adapters/egress"
	"keygate/adapters/webfetch"
	"keygate/adapters/websearch"
	"keygate/app/config"
	"keygate/ports"
)

// maxKeyFile bounds the search key file: a key is a line of text.
const maxKeyFile = 4 << 10

// WebTools are the agent's server-side web tools: the search backend (nil
// when none is configured) and the fetcher (nil when switched off), with
// what the console says about each.
type WebTools struct {
	Search ports.WebSearcher
	Fetch  ports.WebFetcher
	// SearchStatus and FetchStatus say through what a tool runs, or what
	// an administrator sets to offer it. They name backends, never URLs or
	// keys.
	SearchStatus, FetchStatus string
}

// NewWebTools builds the web tools the configuration asks for. Searches
// go through the outbound policy like provider calls (a SearXNG on
// loopback works on a laptop; in company mode a private one needs
// KEYGATE_EGRESS_ALLOW), and a search key never follows a redirect to
// another origin. Fetches dial through the policy's public-only view.
func NewWebTools(cfg config.Config, policy *egress.Policy, logger *zap.Logger) (WebTools, error) {
	var w WebTools
	var err error
	o := websearch.Options{BaseURL: cfg.WebSearchURL, HTTP: policy.HTTPClient()}
	switch cfg.WebSearch {
	case config.WebSearchSearXNG:
		w.Search, err = websearch.NewSearXNG(o)
		w.SearchStatus = "through a SearXNG instance"
	case config.WebSearchBrave:
		if o.APIKey, err = searchKey(cfg); err == nil {
			w.Search, err = websearch.NewBrave(o)
		}
		w.SearchStatus = "through the Brave Search API"
	default:
		w.SearchStatus = fmt.Sprintf("not configured: set %s=%s and %s (a self-hosted SearXNG), or %s=%s and %s",
			config.EnvWebSearch, config.WebSearchSearXNG, config.EnvWebSearchURL, config.EnvWebSearch, config.WebSearchBrave, config.EnvWebSearchKey)
	}
	if err != nil {
		return WebTools{}, fmt.Errorf("web search: %w", err)
	}
	if cfg.WebFetch {
		if w.Fetch, err = webfetch.New(webfetch.Options{Transport: policy.Public().Transport()}); err != nil {
			return WebTools{}, fmt.Errorf("web fetch: %w", err)
		}
		w.FetchStatus = "public pages the user approved, as Markdown"
	} else {
		w.FetchStatus = fmt.Sprintf("switched off (%s=false)", config.EnvWebFetch)
	}
	logger.Info("agent web tools", zap.String("search", cfg.WebSearch), zap.Bool("fetch", cfg.WebFetch))
	return w, nil
}

// searchKey is the search backend's key: from the environment, or the
// first line of the key file.
func searchKey(cfg config.Config) (string, error) {
	if cfg.WebSearchKeyFile == "" {
		return cfg.WebSearchKey, nil
	}
	f, err := os.Open(cfg.WebSearchKeyFile)
	if err != nil {
		return "", fmt.Errorf("read the key file (%s): %w", config.EnvWebSearchKeyFile, err)
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return "", fmt.Errorf("read the key file (%s): %w", config.EnvWebSearchKeyFile, err)
	}
	if len(buf) > maxKeyFile {
		return "", fmt.Errorf("the key file (%s) is larger than %d bytes", config.EnvWebSearchKeyFile, maxKeyFile)
	}
	key, _, _ := strings.Cut(string(buf), "\n")
	if key = strings.TrimSpace(key); key == "" {
		return "", errors.New("the key file (" + config.EnvWebSearchKeyFile + ") is empty")
	}
	return key, nil
}
