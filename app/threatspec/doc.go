// Package threatspec is the company-mode threat list, written as specs: it
// starts the real composition root (app.Initialize) the way a company runs
// it — PostgreSQL, trusted-header sign-in behind an authenticating proxy on
// loopback, the intercepting Cursor proxy with personal gateway tokens — and
// then acts as an ordinary member holding a valid token would when trying to
// reach what is not theirs: the database and the console through the proxy,
// stored provider keys, the memory and the time of the process, other
// people's sessions. Each Describe is one threat; each spec fails when its
// hole reopens. `task specs` prints the list. Where the measure is the
// process itself (its resident memory under gzip bombs and abandoned
// request ids), the spec builds and runs the real keygate binary and reads
// /proc from outside, as an operator would.
//
// Place in the hexagon: none — it drives the whole stack from outside and
// sits under app/ because it starts the composition root. The package has no
// code of its own; its specs are the check.
package threatspec
