// Package console embeds the built admin console (console/dist, written by
// `npm run build` in this directory) so the Keygate binary serves it without
// Node. A fresh clone holds only dist/.gitkeep; the binary then serves a page
// that says how to build the console.
//
// Place in the hexagon: static assets for the driving adapter
// adapters/control, which serves them.
package console
