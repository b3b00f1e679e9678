// Package modelfamily holds what Keygate knows of well-known model
// families from their vendors' documentation: the context window to
// compact at when an administrator configured none, a larger window a user
// may choose (at a higher price), the reasoning effort levels the vendor's
// API accepts, and whether it offers faster, pricier processing. Each
// entry names its source; an unknown model gets nothing, and Keygate then
// relies on what the administrator configured.
//
// Place in the hexagon: domain. Imports: the standard library. The Cursor
// adapter advertises the picker parameters a family allows and compiles the
// chosen ones into the run's model settings.
package modelfamily
