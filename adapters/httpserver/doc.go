// Package httpserver owns Keygate's HTTP listener: it mounts the routes other
// adapters provide, answers the health and readiness probes, and shuts down
// gracefully within a bounded time.
//
// Place in the hexagon: an inbound adapter. It knows nothing of the domain;
// the composition root (package app) hands it handlers and readiness checks.
package httpserver
