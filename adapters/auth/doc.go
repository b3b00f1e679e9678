// Package auth signs users in to the console and the control API and puts
// the caller's access.Principal (and so its identity.Identity) on every
// request context. It has three modes:
//
//   - local: a laptop install. No login; only loopback peers that address
//     Keygate by a loopback host name are served, each as access.Local.
//   - header: behind an authenticating proxy. The user and groups come from
//     configured headers, and only from peers inside configured CIDRs
//     (none wider than a whole private block). An identity header sent
//     twice, in any casing, is refused with 400 rather than guessed at.
//   - oidc: single sign-on with OpenID Connect, authorization code flow with
//     PKCE, then a session cookie.
//
// In every mode, [Gate.DistrustPeers] refuses requests on connections
// Keygate dialled itself, so that its own outbound traffic (the forward
// proxy, provider calls) never reaches the console with the trust of the
// address it leaves from.
//
// Place in the hexagon: inbound adapter. Imports: the standard library,
// domain/access, domain/audit, domain/identity, domain/token, ports
// (SecretBox seals the session cookies), gen/keygate/account/v1 and
// google.golang.org/protobuf (the JSON messages of the /auth routes),
// go.uber.org/zap, github.com/coreos/go-oidc/v3/oidc and
// golang.org/x/oauth2 (OpenID Connect); the composition root hands
// [Gate.Guard] to adapters/control as its Guard and mounts [Gate.Routes]
// and [Gate.AccountRoutes].
//
// The /auth routes answer plain JSON, not Connect, but their messages are
// proto/keygate/account/v1: the routes write and read them with protojson
// and the console with @bufbuild/protobuf, both generated from that file,
// so neither side copies the other's types.
//
// Libraries: the OIDC protocol is github.com/coreos/go-oidc (discovery, ID
// token verification against the provider's JWKS) and golang.org/x/oauth2
// (code exchange, PKCE). Sessions are hand-written stateless cookies sealed
// with the installation's SecretBox rather than a session library: every
// replica that shares the secret key can read them, and no session table is
// needed. The one shared state is the list of sessions signed out before
// their expiry (ports.SessionRevocations, [Gate.RevokeSessionsWith]): a
// copy of a signed-out session's cookie is refused on every replica, at
// the price of one indexed read per console request.
package auth
