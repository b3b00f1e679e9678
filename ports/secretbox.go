package ports

import "errors"

// ErrUnsealable means sealed bytes cannot be opened with this box (another key,
// or corrupted).
var ErrUnsealable = errors.New("sealed secret cannot be opened")

// SecretBox encrypts secrets at rest, such as provider API keys, so a
// database copy alone does not leak them. Both methods are pure CPU work and
// safe for concurrent use.
type SecretBox interface {
	// Seal returns ciphertext of plaintext; sealing the same plaintext twice
	// gives different bytes.
	Seal(plaintext []byte) ([]byte, error)
	// Open returns the plaintext of sealed, or ErrUnsealable (wrapped).
	Open(sealed []byte) ([]byte, error)
}
