package metrics

import "keygate/domain/cursorcloud"

// CursorCloud counts one request bound for Cursor's own service and its
// bytes. Routes are the ledger's (cursorcloud.LedgerRoute), so the labels
// stay within the classified table.
func (m *Metrics) CursorCloud(u cursorcloud.Usage) {
	service, method, decision := u.Route.Service, u.Route.Method, string(u.Decision)
	m.cloudCalls.WithLabelValues(service, method, decision).Inc()
	m.cloudBytes.WithLabelValues(service, method, decision, "up").Add(float64(u.Up))
	m.cloudBytes.WithLabelValues(service, method, decision, "down").Add(float64(u.Down))
}
