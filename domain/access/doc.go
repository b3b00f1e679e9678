// Package access decides who may see what in a company deployment: every
// conversation, run and call record belongs to one user; a member sees only
// their own, an administrator sees everyone's and may change configuration.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/identity. The principal rides on the request context next to the
// identity (see identity.NewContext), put there by the console's
// authentication middleware.
package access
