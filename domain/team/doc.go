// Package team holds the rules of teams in a company deployment. A team is
// an identity-provider group an administrator has marked as a team (not
// every group: a company's directory holds hundreds of groups, most of them
// about mail lists or buildings); its members are the users whose recorded
// groups name it. A user in several teams is charged to one: the team they
// chose while they are still in it, else the first of their groups, in the
// order the identity provider sent them, that is a team. A team may carry
// an allow-list of the models and aliases its members may use; a team
// without one allows every model, and so does being in no team at all.
//
// Place in the hexagon: domain. Imports: the standard library.
package team
