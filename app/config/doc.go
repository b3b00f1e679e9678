// Package config is Keygate's runtime configuration: one struct, its defaults
// and its validation in one place, loaded from flags and the environment.
//
// Place in the hexagon: app. It depends on nothing but the standard library
// and domain (domain/destination parses the outbound allow-list) so that
// cmd/keygate and the composition root share one definition.
package config
