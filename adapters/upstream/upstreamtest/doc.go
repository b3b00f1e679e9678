// Package upstreamtest provides loopback stand-ins for the outside world of
// the upstream and proxy specs: a fake Cursor service that poses as any
// *.cursor.sh host, a dialer that sends those host names to loopback
// listeners (and refuses every address outside 127.0.0.0/8), and a minimal
// outbound CONNECT proxy that records what passes through it.
//
// Place in the hexagon: test support for adapters/upstream and
// adapters/cursorproxy; production code never imports it.
package upstreamtest
