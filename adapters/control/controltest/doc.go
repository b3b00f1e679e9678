// Package controltest provides an in-memory store behind every port the
// control use cases read (model configs, settings, call records with their
// details, conversations), for the control specs and the console's
// browser test server. It follows the port contracts (ordering, not-found
// sentinels, cancelled contexts) but keeps nothing across restarts.
//
// Place in the hexagon: test support for adapters/control; it imports only
// domain and ports.
package controltest
