package control

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"keygate/domain/llm"
	"keygate/ports"
)

// A stored provider key is bound to the origin (scheme, host and port) it
// was saved for: it is only ever sent there. The origin is sealed together
// with the key, in one plaintext under the secret box's AEAD, rather than
// kept in a column beside it: a column could be edited together with the
// base URL by anyone who can write the database, while the sealed origin
// cannot be changed without the secret key. It needs no schema change
// either, so SQLite and PostgreSQL store it as before, and `keygate secret
// rotate` re-seals it unchanged (it re-seals the opaque plaintext).
//
// Sealed plaintext: boundKeyPrefix, the origin, a newline, the key. A
// plaintext without the prefix is a key stored before keys were bound
// (legacy): it is taken as bound to the origin its provider names, and
// [KeyBinding.Bind] seals such keys with that origin at start.
const boundKeyPrefix = "keygate-bound-key-v1\n"

// sealing seals and opens what a provider stores sealed (its keys and
// custom headers, each bound to an origin) and derives the origins its
// requests go to. Every use case that touches a stored secret holds one.
type sealing struct {
	secrets   ports.SecretBox
	protocols ports.ProviderProtocols
}

// storedKey is an opened key and the origin it may be sent to.
type storedKey struct {
	id     string
	key    string
	origin string
	// legacy: stored before keys were bound; origin is the provider's.
	legacy bool
}

// sealKey seals key bound to origin.
func (s sealing) sealKey(key, origin string) ([]byte, error) {
	sealed, err := s.secrets.Seal([]byte(boundKeyPrefix + origin + "\n" + key))
	if err != nil {
		return nil, fmt.Errorf("seal api key: %w", err)
	}
	return sealed, nil
}

// openKey opens key k of provider p and the origin it is bound to.
func (s sealing) openKey(p ports.Provider, k ports.ProviderKey) (storedKey, error) {
	plain, err := s.secrets.Open(k.Sealed)
	if err != nil {
		return storedKey{}, fmt.Errorf("open api key %s of provider %s: %w", k.ID, p.ID, err)
	}
	text := string(plain)
	clear(plain)
	if rest, ok := strings.CutPrefix(text, boundKeyPrefix); ok {
		origin, key, ok := strings.Cut(rest, "\n")
		if !ok {
			return storedKey{}, fmt.Errorf("open api key %s of provider %s: %w", k.ID, p.ID, ports.ErrUnsealable)
		}
		return storedKey{id: k.ID, key: key, origin: origin}, nil
	}
	origin, err := s.providerOrigin(p)
	if err != nil {
		return storedKey{}, err
	}
	return storedKey{id: k.ID, key: text, origin: origin, legacy: true}, nil
}

// keepKeys checks that keys, stored for provider old, may be sent to
// origin, where the provider's requests go after a change: moved builds the
// refusal of a key saved for another origin. A key that cannot be opened
// counts as bound to old's origin. A legacy key is sealed bound to origin
// in place, now that the origin is known to be unchanged.
func (s sealing) keepKeys(old ports.Provider, keys []ports.ProviderKey, origin string, moved func(savedFor string) error) error {
	for i, k := range keys {
		sk, err := s.openKey(old, k)
		if err != nil {
			if sk.origin, err = s.providerOrigin(old); err != nil {
				return err
			}
		}
		if sk.origin != origin {
			return moved(sk.origin)
		}
		if sk.legacy {
			if keys[i].Sealed, err = s.sealKey(sk.key, origin); err != nil {
				return err
			}
		}
	}
	return nil
}

// providerOrigin is the origin the requests of p go to.
func (s sealing) providerOrigin(p ports.Provider) (string, error) {
	return s.originOf(p.Kind, p.BaseURL, "", p.UseFullURL)
}

// originOf is the origin of the request URL the protocol derives.
func (s sealing) originOf(kind llm.ProviderKind, base, model string, full bool) (string, error) {
	u, err := s.protocols.RequestURL(kind, base, model, full)
	if err != nil {
		return "", fmt.Errorf("request url: %w", err)
	}
	return Origin(u)
}

// Origin returns the origin of an http(s) URL as Keygate compares them:
// lower-case scheme and host, the port only when it is not the scheme's
// default (https://api.openai.com, http://127.0.0.1:8000).
func Origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("origin of %q: not an http(s) URL with a host", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "https" && p == "443") && !(scheme == "http" && p == "80") {
		host += ":" + p
	}
	return scheme + "://" + host, nil
}

// KeyOriginError means a stored key would be sent to another origin than the
// one it was saved for. Endpoint returns it for a row whose base URL was
// changed behind Keygate's back (a tampered or hand-edited database).
type KeyOriginError struct {
	// ModelID names the model whose call was refused.
	ModelID  string
	SavedFor string
	SendTo   string
}

// Error names both origins and what an administrator must do.
func (e *KeyOriginError) Error() string {
	return fmt.Sprintf("the API key of model %s was saved for %s and would be sent to %s; an administrator must enter the key again",
		e.ModelID, e.SavedFor, e.SendTo)
}

// KeyBinding is the start-up migration of the secrets an earlier Keygate
// stored: keys sealed without their origin, custom headers kept in clear.
// It is run once per start, after the replica check (a replica with
// another secret key must never re-seal what it cannot open), and is safe
// to run again.
type KeyBinding struct {
	providers ports.ProviderStore
	seal      sealing
}

// NewKeyBinding returns the migration over the provider store, the secret
// box that sealed its keys and the protocols that derive their origins.
func NewKeyBinding(providers ports.ProviderStore, secrets ports.SecretBox, protocols ports.ProviderProtocols) *KeyBinding {
	return &KeyBinding{providers: providers, seal: sealing{secrets: secrets, protocols: protocols}}
}

// Bind seals every key stored before keys were bound together
// with the origin its provider names now, so that from then on a change of
// the provider's base URL alone cannot redirect it, and seals, bound the
// same way, the custom headers an earlier Keygate stored in clear, leaving
// no clear value stored. It returns how many keys and header sets it
// sealed. Keys that cannot be opened, or whose provider names no valid
// URL, are left alone: they cannot be sent anywhere. Running it again is a
// no-op; a provider edited in the same instant by another replica is
// last-writer-wins, as every edit is.
func (b *KeyBinding) Bind(ctx context.Context) (int, error) {
	all, err := b.providers.Providers(ctx)
	if err != nil {
		return 0, fmt.Errorf("bind stored keys: %w", err)
	}
	n := 0
	for _, p := range all {
		bound := 0
		for i, k := range p.Keys {
			sk, err := b.seal.openKey(p, k)
			if err != nil || !sk.legacy {
				continue
			}
			if p.Keys[i].Sealed, err = b.seal.sealKey(sk.key, sk.origin); err != nil {
				return n, fmt.Errorf("bind key %s of provider %s: %w", k.ID, p.ID, err)
			}
			bound++
		}
		if len(p.ClearHeaders) > 0 {
			if p.SealedHeaders == nil {
				hs, err := b.seal.openHeaders(p)
				if err != nil {
					return n, fmt.Errorf("seal custom headers of provider %s: %w", p.ID, err)
				}
				if p.SealedHeaders, err = b.seal.sealHeaders(hs.values, hs.origin); err != nil {
					return n, fmt.Errorf("seal custom headers of provider %s: %w", p.ID, err)
				}
			}
			p.ClearHeaders = nil
			bound++
		}
		if bound == 0 {
			continue
		}
		if err := b.providers.PutProvider(ctx, p); err != nil {
			return n, fmt.Errorf("bind keys of provider %s: %w", p.ID, err)
		}
		n += bound
	}
	return n, nil
}
