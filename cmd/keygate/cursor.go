package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/cursorproxy/setup"
	"keygate/app"
	"keygate/app/config"
)

// EnvProxyToken passes a personal gateway token to `keygate cursor setup`
// without putting it on the command line, where other users could see it.
const EnvProxyToken = "KEYGATE_PROXY_TOKEN"

// cursorSetup is `keygate cursor setup [--undo]`.
func (c *cli) cursorSetup() *cobra.Command {
	return c.leaf(&cobra.Command{
		Use:   "setup",
		Short: "Point this machine's Cursor at the Keygate proxy and explain how to trust its CA (--undo removes it)",
		Long: "Write Cursor's http.proxy settings (and HTTP/2 off) into its user settings.json, keeping the rest of\n" +
			"the file, and print how to trust the CA the proxy intercepts with. --undo removes what it wrote.\n" +
			"A company token goes in " + EnvProxyToken + ", never on the command line.",
		Example: "  keygate cursor setup\n" +
			"  " + EnvProxyToken + "=kg_... keygate cursor setup --proxy https://keygate.example.com:8443 --ca-cert company-ca.crt\n" +
			"  keygate cursor setup --undo",
	}, ownFlags("keygate cursor setup", func(fs *flag.FlagSet) func(streams) int {
		var o setupOptions
		o.dataDir = dataDirFlag(fs)
		fs.StringVar(&o.settings, "settings", "", "Cursor settings.json to edit (default: Cursor's user settings for this OS)")
		fs.StringVar(&o.proxy, "proxy", cursorproxy.DefaultAddr, "Keygate's Cursor proxy: host:port on this machine, or the https://host:port URL a company's console shows (a token goes to another machine only over TLS)")
		fs.StringVar(&o.token, "token", os.Getenv(EnvProxyToken), "personal gateway token for a company proxy (env "+EnvProxyToken+")")
		fs.StringVar(&o.caCert, "ca-cert", "", "company CA certificate to trust instead of this installation's CA")
		fs.BoolVar(&o.undo, "undo", false, "remove the settings setup wrote")
		return func(s streams) int { return setupCursor(s, o) }
	}))
}

// setupOptions are cursor setup's flags.
type setupOptions struct {
	dataDir                        *string
	settings, proxy, token, caCert string
	undo                           bool
}

func setupCursor(s streams, o setupOptions) int {
	stdout, stderr := s.out, s.err
	path := o.settings
	if path == "" {
		home, _ := os.UserHomeDir()
		p, err := setup.SettingsPath(runtime.GOOS, os.Getenv, home)
		if err != nil {
			fmt.Fprintf(stderr, "keygate: %v; pass --settings\n", err)
			return 1
		}
		path = p
	}
	if o.undo {
		changes, err := setup.Undo(path)
		if err != nil {
			fmt.Fprintf(stderr, "keygate: undo Cursor settings: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Removed %d Keygate settings from %s. Restart Cursor.\n", len(changes), path)
		return 0
	}
	proxyURL, err := setup.ProxyURL(o.proxy, o.token)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 2
	}
	certPath, err := trustedCert(o.caCert, *o.dataDir, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: %v\n", err)
		return 1
	}
	changes, err := setup.Apply(path, proxyURL)
	if err != nil {
		fmt.Fprintf(stderr, "keygate: write Cursor settings: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Updated %s:\n", path)
	for _, c := range changes {
		fmt.Fprintf(stdout, "  %s = %s\n", c.Key, redact(c.New))
		if c.Key == "http.proxy" && c.Old != "" && c.Old != c.New {
			fmt.Fprintf(stdout, "    (it was %s; `keygate cursor setup --undo` removes the key, it does not restore that value)\n", redact(c.Old))
		}
	}
	fmt.Fprintln(stdout)
	if note := setup.ProxyTrustNote(proxyURL); note != "" {
		fmt.Fprintln(stdout, note)
	}
	fmt.Fprint(stdout, setup.TrustInstructions(certPath))
	return 0
}

// trustedCert returns the CA certificate the user must trust: the company's
// when given, else this installation's (generated now if Keygate never ran).
func trustedCert(companyCert, dataDir string, stdout io.Writer) (string, error) {
	if companyCert != "" {
		return filepath.Abs(companyCert)
	}
	dir, err := prepareDataDir(dataDir)
	if err != nil {
		return "", err
	}
	_, created, err := ca.LoadOrCreate(dir, time.Now())
	if err != nil {
		return "", fmt.Errorf("installation CA: %w", err)
	}
	if created {
		fmt.Fprintf(stdout, "Created this installation's CA in %s.\n", dir)
	}
	return filepath.Join(dir, ca.CertFile), nil
}

// redact hides the token in a JSON-quoted proxy URL.
func redact(quoted string) string {
	var s string
	if _, err := fmt.Sscanf(quoted, "%q", &s); err != nil {
		return quoted
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return quoted
	}
	return fmt.Sprintf("%q", u.Redacted())
}

// dataDirFlag registers --data-dir with the same default and environment
// variable as `keygate serve`.
func dataDirFlag(fs *flag.FlagSet) *string {
	def := config.Default().DataDir
	if v := os.Getenv(config.EnvDataDir); v != "" {
		def = v
	}
	return fs.String("data-dir", def, "data directory (env "+config.EnvDataDir+")")
}

// prepareDataDir creates the data directory (mode 0700) like serve does.
func prepareDataDir(dir string) (string, error) {
	d, err := app.PrepareDataDir(config.Config{DataDir: dir})
	return string(d), err
}
