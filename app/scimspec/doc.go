// Package scimspec is SCIM provisioning written as specs: it starts the
// real composition root (app.Initialize) in company mode on SQLite and on
// PostgreSQL, with trusted-header sign-in and a SCIM token, and sends
// /scim/v2 the requests Okta and Entra ID send (their bodies as their
// documentation shows them: Okta's path-less value maps, Entra's
// capitalised ops and "False" strings, members removed by filter or by
// value), then checks what a deactivated, deleted or regrouped user can
// still do through the console and the Cursor proxy.
//
// Place in the hexagon: none — it drives the whole stack from outside and
// sits under app/ because it starts the composition root. The package has
// no code of its own; its specs are the check.
package scimspec
