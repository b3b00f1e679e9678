// Package doctor is what `keygate doctor` runs: checks of a configuration
// and of what it points at (the database, the secret key and CA the
// replicas share, the proxy's TLS, sign-in, the outbound allow-list, the
// metrics token, every model's provider, Cursor on this machine), each
// answering ok, or what is wrong and how to fix it. A deploy pipeline gates
// on Report.Failed.
//
// Place in the hexagon: app. The checks here decide from plain values, the
// stores' ports and the other use cases (app/company, app/control); the
// composition root (app.DoctorChecks) gathers those values from the
// adapters and hands every check to Run in the order the report prints.
package doctor
