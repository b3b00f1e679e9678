// Package ca is the certificate authority the Cursor proxy intercepts TLS
// with: the installation's own root (generated on first start into the data
// directory, the key file mode 0600) or a company root loaded from files,
// and the per-host leaf certificates minted from it on demand and cached.
//
// Place in the hexagon: an adapter (file system and crypto). Only the
// composition root, the proxy and the command line use it.
//
// Keys are ECDSA P-256. Minting happens on the first CONNECT to each host,
// on the request path: a P-256 key takes microseconds where RSA-3072 takes
// hundreds of milliseconds, and every TLS stack Cursor runs on (Node's
// OpenSSL/BoringSSL, macOS, Windows, NSS) accepts P-256 roots. A company
// root of any key type crypto/x509 can sign with also works.
//
// The generated root is name-constrained to cursor.sh and loopback
// addresses: if its key ever leaked, it could not impersonate other sites
// to a machine that trusts it. Company roots are used as given;
// `keygate ca init` makes one like the installation root (GenerateFor,
// CreateFiles, which never overwrites a file). See
// docs/cursor-protocol.md, "One CA per installation".
//
// The standard library does everything here; no package adds a bounded
// certificate cache with in-flight deduplication, so leaf.go keeps a small
// LRU of its own and golang.org/x/sync/singleflight collapses concurrent
// mints for one host.
package ca
