// Package company holds the use cases of a company deployment: re-sealing
// stored provider keys under a new secret key, sealing relayed appends (and
// reporting the ones that do not open), the replicas' agreement on one
// secret key and one CA (Shape, Agree, Compare, Adopt over the fingerprints
// in the database),
// personal gateway tokens, the audit log of administrator actions, tenancy
// (each user reaches only their own conversations and calls; CursorStores
// are the stores of the Cursor path, each kept to the caller) and budgets
// per user and team (HoldTurn holds a run slot for each top-level Cursor
// turn, and a subagent slot for a subagent of the caller's running turn;
// the limits live in the store, each replica following their revision
// every LimitsRefresh; Alerts posts to a webhook when a budget passes 80%
// and 100%).
//
// Place in the hexagon: app. Imports: the standard library, domain, ports
// and go.uber.org/zap (the injected logger); the composition root hands it
// the stores and the secret box.
package company
