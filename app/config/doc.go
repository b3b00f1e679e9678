// Package config is Keygate's runtime configuration: one struct, its defaults
// and its validation in one place, loaded from flags and the environment.
//
// Place in the hexagon: app. It depends on the standard library and on
// domain/destination only (whose parser checks the outbound allow-list and
// the proxy's pass-through list), so that cmd/keygate and the composition
// root share one definition.
package config
