// Package config is Keygate's runtime configuration: one struct, its defaults
// and its validation in one place, loaded from flags and the environment.
//
// Place in the hexagon: app. Imports: the standard library,
// domain/cursorcloud (the Cursor cloud policy and its mode default),
// domain/destination (whose parser checks the outbound allow-list and the
// proxy's pass-through list), domain/secretscan (the secret guard's modes
// and their default) and domain/token (whose policy bounds gateway
// token lifetimes). Being this small, it lets cmd/keygate and the
// composition root share one definition.
package config
