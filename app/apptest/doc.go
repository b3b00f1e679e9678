// Package apptest starts the real composition root for the specs that drive
// Keygate from outside (app/tenancyspec, app/threatspec, app/agentspec and
// the app package's own specs): one place that builds Keygate from a
// configuration, runs its listeners, waits until they answer and stops it
// when the spec ends, and the clients a developer's Cursor uses to reach it.
//
// Place in the hexagon: test support beside the composition root, like
// ports/porttest beside the ports; only specs import it. It uses Ginkgo's
// DeferCleanup and Gomega's assertions, so it must be called from a spec or
// a setup node.
package apptest
