// Package metrics exposes Keygate's operational metrics to Prometheus at
// /metrics: runs, provider calls, tokens, time to first token and
// inter-token gaps, and errors by class.
//
// Place in the hexagon: adapter. It observes the application through
// decorators of the ports it already has — [Metrics.Provider] wraps a
// ports.ModelProvider, [Metrics.Runs] wraps a ports.RunStore — so no use
// case knows metrics exist. The composition root wraps the real adapters
// and mounts [Metrics.Handler].
//
// It uses github.com/prometheus/client_golang with its own registry (not
// the global default one), so specs and several instances in one process
// do not collide. Labels are deliberately few (provider kind, model id,
// the Cursor cloud route of a classified table,
// outcome, error class): never user ids, which would grow without bound.
package metrics
