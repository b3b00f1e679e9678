// Package teams is the use case of teams in a company deployment: which
// identity-provider groups are teams (an administrator marks them; every
// other group is ignored), who is in each (the users whose recorded groups
// name it, as sign-in, the trusted proxy header or SCIM recorded them), the
// team each user is charged to (their choice while they are in it, else
// their first team: team.Charged), and the models each user may use (the
// union of their teams' allow-lists: team.AccessOf).
//
// Service implements ports.ChargedTeams, the one lookup budgets and spend
// reports key on. Membership is read at each call, so a group change
// recorded by any replica applies on the next request everywhere.
//
// Place in the hexagon: use case. Imports: the standard library, domain
// and ports.
package teams
