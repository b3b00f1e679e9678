// Package tenancyspec holds the end-to-end tenant-isolation matrix: it
// starts the real composition root (app.Initialize) in a company sign-in
// mode over a temporary SQLite data dir, runs a member's Cursor turn
// through the intercepting proxy with her personal gateway token, and then
// has another member try her data through every control procedure (read
// from the generated descriptors), every account route and every Cursor
// route (read from the Cursor adapter), expecting nothing of hers back.
// The package has no code of its own; its specs are the check.
//
// Place in the hexagon: none — it drives the whole stack from outside, as
// a company's users would, and sits under app/ because it starts the
// composition root.
package tenancyspec
