// Package secretbox seals secrets at rest (provider API keys) with
// AES-256-GCM under a local key kept in the data directory.
//
// Place in the hexagon: adapter implementing ports.SecretBox. It is written
// on the standard library's crypto/aes and crypto/cipher rather than a
// library: sealing is a dozen lines there, and the key file handling is the
// part that is specific to Keygate.
package secretbox
