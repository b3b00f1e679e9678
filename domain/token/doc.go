// Package token defines personal gateway tokens: the credential a company
// user puts into Cursor so the Keygate proxy knows who is calling. A token
// is shown once when it is created; Keygate keeps only its SHA-256 hash, a
// short hint for display, and its life-cycle times.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/identity; the caller hands it the randomness and the time, so the
// rules stay pure. SHA-256 without a salt or a slow hash is enough here
// because a token is 32 random bytes, not a password: there is nothing to
// guess.
package token
