// Package secret seals secrets at rest (provider API keys) with AES-256-GCM
// under a keyring: one primary key that seals, and older keys that still
// open, so that `keygate secret rotate` can re-seal every stored key under a
// new one without a window in which anything is unreadable.
//
// Place in the hexagon: adapter implementing ports.SecretBox. It is written
// on the standard library's crypto/aes and crypto/cipher rather than a
// library: sealing is a dozen lines there, and what is specific to Keygate
// is where keys come from (environment, file, or a generated 0600 file in
// the data directory) and the key id in every sealed value.
//
// Sealed format (version 2): version byte, 4-byte key id, 12-byte nonce,
// ciphertext and tag; the version and key id are authenticated as
// additional data. The key id is derived from the key with SHA-256 so that
// no separate key registry is needed. Values sealed by the earlier secretbox adapter
// (version 1, no key id) still open, with any key of the ring, so a store
// written before this package existed stays readable and rotation upgrades
// it.
package secret
