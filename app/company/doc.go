// Package company holds the use cases of a company deployment: re-sealing
// stored provider keys under a new secret key, personal gateway tokens, and
// the audit log of administrator actions.
//
// Place in the hexagon: app. It imports only domain and ports; the
// composition root hands it the stores and the secret box.
package company
