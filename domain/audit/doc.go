// Package audit describes the audit log of administrator actions: who did
// what to which object, when, and the object before and after, with every
// secret masked before the entry is stored.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/identity. Masking lives here because it is a rule about what an
// audit entry may contain, independent of where entries are kept.
package audit
