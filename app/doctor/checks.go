package doctor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"keygate/app/company"
	"keygate/app/config"
	"keygate/app/control"
	"keygate/domain/destination"
	"keygate/ports"
)

// soon is how far ahead an expiring certificate is worth a warning.
const soon = 30 * 24 * time.Hour

// Configuration reports what Validate refused, one problem per line.
func Configuration(problems []error) Result {
	if len(problems) == 0 {
		return Ok("valid")
	}
	var lines []string
	for _, p := range problems {
		lines = append(lines, p.Error())
	}
	return Failed(strings.Join(lines, "; "), "Correct the settings named above (keygate serve -h lists every flag and its variable).")
}

// DatabaseFacts are what the composition root found of the database,
// without changing it.
type DatabaseFacts struct {
	// Engine is "PostgreSQL" or "SQLite"; Where names it without
	// credentials (host and database, or the file).
	Engine, Where string
	// Missing: the SQLite file does not exist yet.
	Missing bool
	// Current and Latest are the schema versions (relstore.Schema).
	Current, Latest int64
	Err             error
}

// Database reports whether the database answers and is migrated. Pending
// migrations only warn: keygate serve applies them at start, so a pipeline
// that runs the doctor of a new release before rolling it out passes.
func Database(f DatabaseFacts) Result {
	switch {
	case f.Err != nil:
		fix := "Check " + config.EnvDatabaseURL + ": host, port, database, credentials and sslmode, and that the database accepts connections from here."
		if f.Engine == "SQLite" {
			fix = "Check that the data directory (" + config.EnvDataDir + ") is readable and holds Keygate's database."
		}
		return failedf(fix, "%s %s cannot be read: %v", f.Engine, f.Where, f.Err)
	case f.Missing:
		return Warned(fmt.Sprintf("%s %s does not exist yet", f.Engine, f.Where), "keygate serve creates it on first start.")
	case f.Current > f.Latest:
		return failedf("Run the Keygate release that migrated it, or restore a backup taken before that upgrade.",
			"%s %s was migrated by a newer Keygate (schema version %d; this build knows up to %d)", f.Engine, f.Where, f.Current, f.Latest)
	case f.Current == 0:
		return Warned(fmt.Sprintf("%s %s answers but holds no Keygate schema yet", f.Engine, f.Where), "keygate serve creates the schema at first start.")
	case f.Current < f.Latest:
		return Warned(fmt.Sprintf("%s %s answers; its schema is at version %d, this build migrates it to %d", f.Engine, f.Where, f.Current, f.Latest),
			"keygate serve applies the pending migrations at start; take a backup first.")
	}
	return Ok(fmt.Sprintf("%s %s answers; schema up to date (version %d)", f.Engine, f.Where, f.Current))
}

// needsStore is the result of a check that needs the database when the
// database check found it unusable.
func needsStore() Result {
	return Skipped("needs the database's schema up to date (see the database check)")
}

// keyFix is what makes a replica's secret key the deployment's.
var keyFix = "Give every replica the same key (" + config.EnvSecretKeyFile + " or " + config.EnvSecretKey + "); during a rotation keep the old key in " +
	config.EnvSecretPreviousKeyFile + ". If the deployment's key is lost, `keygate secret adopt` records this one (stored provider keys must then be entered again)."

// SecretKey reports whether this configuration's secret key can be the
// deployment's: it comes from the configuration when replicas share the
// database in company mode, and its fingerprint is the one the database
// recorded (or none is recorded yet). store is nil when the database is
// not usable.
func SecretKey(ctx context.Context, store ports.FingerprintStore, shape company.Shape, key company.Mark) Result {
	if shape.Company && shape.Replicated() && !shape.KeyConfigured {
		return Failed(company.ErrGeneratedKey.Error()+": replicas could not open what the others sealed",
			"Set "+config.EnvSecretKeyFile+" (or "+config.EnvSecretKey+") to one key every replica shares, or "+config.EnvSingleReplica+"=true for a single process.")
	}
	if store == nil {
		return needsStore()
	}
	err := company.Compare(ctx, store, key)
	switch {
	case err == nil:
		return Ok("fingerprint " + company.Short(key.Mine) + " matches the one the database records")
	case errors.Is(err, ports.ErrNotFound):
		return Ok("fingerprint " + company.Short(key.Mine) + "; no replica has recorded one yet (the first to start records it)")
	case errors.Is(err, company.ErrMismatch):
		return Failed("this key is not the deployment's: "+err.Error(), keyFix)
	}
	return failedf("Check the database (see above).", "cannot read the recorded fingerprint: %v", err)
}

// CAFacts are what the composition root found of the CA this
// configuration uses.
type CAFacts struct {
	// Configured: a company CA from the configuration; otherwise the
	// installation CA in the data directory, Missing when it does not
	// exist yet.
	Configured, Missing bool
	Err                 error
	Cert                *x509.Certificate
	// Usable is the outcome of minting and verifying a leaf for a Cursor
	// host (ca.Authority.Usable).
	Usable      error
	Fingerprint string
	Now         time.Time
}

// CAHost is the host the CA check mints a certificate for: the one Cursor
// talks to.
const CAHost = "api2.cursor.sh"

// CA reports whether the CA can sign what the proxy presents to Cursor,
// is name-constrained (its key, which sits beside Keygate, cannot
// impersonate other sites to the machines that trust it), is the one the
// replicas share, and is not about to expire. store is nil when the
// database is not usable; the CA is compared in company mode only.
func CA(ctx context.Context, f CAFacts, store ports.FingerprintStore, shape company.Shape) Result {
	caFix := "Set " + config.EnvCACert + " and " + config.EnvCAKey + " to the company CA (PEM)"
	switch {
	case shape.Company && shape.Replicated() && !f.Configured:
		return Failed(company.ErrGeneratedCA.Error()+": developers' machines trust only one",
			caFix+", or "+config.EnvSingleReplica+"=true for a single process.")
	case f.Err != nil:
		return failedf(caFix+": a CA certificate allowed to sign certificates, and its key.", "cannot load the CA: %v", f.Err)
	case f.Missing:
		return Skipped("the installation CA is generated in the data directory at first start")
	case f.Usable != nil:
		return failedf("Use a CA whose name constraints permit cursor.sh, valid now.", "cannot sign for %s: %v", CAHost, f.Usable)
	case len(f.Cert.PermittedDNSDomains) == 0:
		return Failed(fmt.Sprintf("%q is not name-constrained: whoever takes its key (it sits beside Keygate) can impersonate any site to every machine that trusts it", f.Cert.Subject.CommonName),
			"Use a CA whose name constraints permit only cursor.sh (and loopback addresses), as the one Keygate generates.")
	}
	if shape.Company && shape.SharedStore {
		if store == nil {
			return needsStore()
		}
		err := company.Compare(ctx, store, company.Mark{Name: company.CAMark, Mine: f.Fingerprint})
		switch {
		case errors.Is(err, company.ErrMismatch):
			return Failed("this CA is not the deployment's: "+err.Error(),
				"Give every replica the same "+config.EnvCACert+" and "+config.EnvCAKey+"; after moving to a new CA on purpose, `keygate ca adopt` records it.")
		case err != nil && !errors.Is(err, ports.ErrNotFound):
			return failedf("Check the database (see above).", "cannot read the recorded fingerprint: %v", err)
		}
	}
	detail := fmt.Sprintf("%q signs for %s, name-constrained to %s, valid until %s", f.Cert.Subject.CommonName, CAHost,
		strings.Join(f.Cert.PermittedDNSDomains, ", "), f.Cert.NotAfter.Format(time.DateOnly))
	if f.Cert.NotAfter.Sub(f.Now) < soon {
		return Warned(detail, "Renew the CA before it expires (with the same key, clients keep trusting it) and restart the replicas.")
	}
	return Ok(detail)
}

// ProxyFacts are the proxy's settings as the composition root worked them
// out.
type ProxyFacts struct {
	Listen            string
	CertFile, KeyFile string
	// URL is the proxy URL developers put into Cursor (configured or
	// derived from the listen address).
	URL     string
	Company bool
	Now     time.Time
}

// ProxyTLS reports whether gateway tokens reach the proxy over TLS where
// they must, and whether its certificate loads, is valid and names the
// host developers use.
func ProxyTLS(f ProxyFacts) Result {
	if f.Listen == "" {
		return Skipped("the proxy is off (" + config.EnvProxyListen + " is empty)")
	}
	u, err := url.Parse(f.URL)
	if err != nil || u.Hostname() == "" {
		return Failed(fmt.Sprintf("cannot tell the proxy's URL (%q)", f.URL), "Set "+config.EnvProxyURL+" to the URL developers put into Cursor.")
	}
	if f.CertFile == "" {
		switch {
		case u.Scheme == "https":
			return Ok("TLS ends at a terminator in front of the proxy (" + f.URL + ")")
		case f.Company && !loopback(f.Listen):
			return Failed("the proxy would take gateway tokens in clear text from the network (keygate serve refuses to start)",
				"Set "+config.EnvProxyTLSCert+" and "+config.EnvProxyTLSKey+", or put a TCP-level TLS terminator in front and set "+config.EnvProxyURL+"=https://….")
		}
		return Ok("plain HTTP on loopback (" + f.URL + ")")
	}
	pair, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return failedf(config.EnvProxyTLSCert+" and "+config.EnvProxyTLSKey+" must be a certificate (PEM, chain first leaf) and its private key.",
			"cannot load the proxy's certificate: %v", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return failedf("Use a valid X.509 certificate.", "cannot parse the proxy's certificate: %v", err)
	}
	host := u.Hostname()
	switch {
	case f.Now.After(leaf.NotAfter):
		return failedf("Renew the certificate and restart the replicas.", "the proxy's certificate expired on %s", leaf.NotAfter.Format(time.DateOnly))
	case leaf.VerifyHostname(host) != nil:
		names := append(append([]string{}, leaf.DNSNames...), ipStrings(leaf.IPAddresses)...)
		return failedf("Issue the certificate for "+host+", or set "+config.EnvProxyURL+" to a name it covers.",
			"the proxy's certificate names %s, not %s, the host developers use", strings.Join(names, ", "), host)
	case leaf.NotAfter.Sub(f.Now) < soon:
		return Warned(fmt.Sprintf("certificate for %s expires on %s", host, leaf.NotAfter.Format(time.DateOnly)), "Renew it and restart the replicas.")
	}
	return Ok(fmt.Sprintf("certificate for %s, valid until %s", host, leaf.NotAfter.Format(time.DateOnly)))
}

func ipStrings(ips []net.IP) []string {
	var out []string
	for _, ip := range ips {
		out = append(out, ip.String())
	}
	return out
}

// loopback reports whether a listen address is a loopback one.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// TrustedProxies reports whether header sign-in trusts only narrow ranges
// (checkErr is what the sign-in gate would refuse).
func TrustedProxies(mode string, ranges []netip.Prefix, checkErr error) Result {
	if mode != "header" {
		if mode == "" {
			mode = "local"
		}
		return Skipped("sign-in is " + mode + ": no identity header is trusted")
	}
	if checkErr != nil {
		return Failed(checkErr.Error(), "List only your authenticating proxies' addresses in "+config.EnvAuthTrustedProxies+".")
	}
	var s []string
	for _, p := range ranges {
		s = append(s, p.String())
	}
	return Ok("identity headers are believed from " + strings.Join(s, ", ") + " only")
}

// AllowList reports whether the outbound allow-list parses and whether the
// destinations it names with a port answer (a TCP connection through the
// outbound policy; other entries cannot be probed cheaply). An entry that
// does not answer warns: the service behind it may just be down now.
// laptop: local sign-in, where private and loopback addresses are open
// anyway.
func AllowList(ctx context.Context, entries []string, laptop bool, probe func(ctx context.Context, hostport string) error) Result {
	if _, err := destination.ParseList(entries); err != nil {
		return Failed(err.Error(), "Fix "+config.EnvEgressAllow+": IPs, CIDR ranges, host names or *.domain, each with or without :port, comma-separated.")
	}
	switch {
	case len(entries) == 0 && laptop:
		return Ok("empty: a laptop reaches public, private and loopback addresses (not link-local, not Keygate's own ports)")
	case len(entries) == 0:
		return Ok("empty: Keygate reaches public addresses only")
	}
	var down []string
	probed := 0
	for _, e := range entries {
		host, port, err := net.SplitHostPort(e)
		if err != nil || port == "" || strings.Contains(host, "*") || strings.Contains(host, "/") {
			continue
		}
		probed++
		if err := probe(ctx, e); err != nil {
			down = append(down, fmt.Sprintf("%s (%v)", e, err))
		}
	}
	if len(down) > 0 {
		return Warned("allows "+strings.Join(entries, ", ")+"; not answering: "+strings.Join(down, "; "),
			"Check that these services run and that this machine reaches them; remove entries no longer needed.")
	}
	return Ok(fmt.Sprintf("allows %s (%d with a port answered)", strings.Join(entries, ", "), probed))
}

// MetricsToken reports whether Prometheus can scrape a company deployment.
// Without a token /metrics is closed there: safe, but unobserved, so it
// only warns.
func MetricsToken(companyMode bool, token string) Result {
	switch {
	case token != "":
		return Ok("/metrics requires the configured bearer token")
	case companyMode:
		return Warned("/metrics answers 403 in company mode without a token",
			"Set "+config.EnvMetricsToken+" and give Prometheus the same value (authorization: credentials).")
	}
	return Ok("/metrics is open on the console listener (local sign-in)")
}

// Provider reports a model's connection test (control.Tester.Test), made
// through the outbound policy and provider client keygate serve uses.
func Provider(res control.TestResult, err error) Result {
	switch {
	case err != nil:
		return failedf("Check the model in the console (Providers & Models).", "cannot test: %v", err)
	case !res.OK:
		return Failed(res.Error, "Check the model's base URL, key and model id in the console (Providers & Models), and "+config.EnvEgressAllow+" for a private address.")
	}
	return Ok(fmt.Sprintf("answered in %s (first text after %s)", res.Duration.Round(time.Millisecond), res.TimeToFirstText.Round(time.Millisecond)))
}

// CursorFacts are Cursor's user settings on this machine.
type CursorFacts struct {
	Path string
	// Values are setup.Current's: each setup key's JSON literal.
	Values map[string]string
	Err    error
	// Want is the proxy URL Keygate hands out ("" when the proxy is off).
	Want    string
	Company bool
}

// Cursor reports whether Cursor on this machine is pointed at the proxy.
// On a company server, where no Cursor runs, a missing settings file is
// not a failure.
func Cursor(f CursorFacts) Result {
	setupFix := "Run keygate cursor setup --proxy " + f.Want + ", then restart Cursor."
	switch {
	case f.Want == "":
		return Skipped("the proxy is off")
	case errors.Is(f.Err, fs.ErrNotExist) && f.Company:
		return Skipped("no Cursor settings on this machine (" + f.Path + "); run keygate doctor on a developer's machine to check theirs")
	case errors.Is(f.Err, fs.ErrNotExist):
		return Failed("no Cursor settings at "+f.Path, setupFix)
	case f.Err != nil:
		return failedf("Correct or remove the file, then run keygate cursor setup.", "cannot read Cursor's settings: %v", f.Err)
	}
	var proxy string
	if raw := f.Values["http.proxy"]; raw == "" || json.Unmarshal([]byte(raw), &proxy) != nil || proxy == "" {
		return Failed("Cursor's http.proxy is not set in "+f.Path, setupFix)
	}
	got, err := url.Parse(proxy)
	if err != nil || !strings.Contains(proxy, "://") {
		got, err = url.Parse("http://" + proxy)
	}
	want, werr := url.Parse(f.Want)
	if err != nil || werr != nil || got.Scheme != want.Scheme || got.Host != want.Host {
		shown := proxy
		if err == nil {
			shown = got.Redacted()
		}
		return Failed(fmt.Sprintf("Cursor's http.proxy is %s, not %s", shown, f.Want), setupFix)
	}
	if f.Values["cursor.general.disableHttp2"] != "true" {
		return Failed("Cursor's HTTP/2 is on, and its HTTP/2 client ignores http.proxy", setupFix)
	}
	if f.Values["http.proxySupport"] != `"on"` || f.Values["http.experimental.systemCertificatesV2"] != "true" {
		return Warned("Cursor points at "+f.Want+", but extensions may bypass the proxy or not trust the CA", setupFix)
	}
	return Ok("Cursor's settings point at " + f.Want)
}
