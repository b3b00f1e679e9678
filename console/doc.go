// Package console embeds the built admin console (console/dist, written by
// `npm run build` in this directory) so the Keygate binary serves it without
// Node. The built output is committed (Vite's output is deterministic, and
// `task check-generated` rebuilds and diffs it), so a fresh clone serves the
// console with nothing but Go.
//
// Place in the hexagon: static assets for the driving adapter
// adapters/control, which serves them.
package console
