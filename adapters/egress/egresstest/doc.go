// Package egresstest gives specs names with any address without touching
// /etc/hosts or the network: a Go resolver whose DNS server is in process.
//
// Place in the hexagon: test support for adapters/egress and the specs of
// what is wired to it; production code never imports it.
package egresstest
