package access

import "slices"

// RoleMap maps the groups (or any list-valued claim) an identity provider
// asserts to a Keygate role.
type RoleMap struct {
	// AdminGroups make a user an administrator.
	AdminGroups []string
	// MemberGroups admit a user as a member. Empty admits every
	// authenticated user.
	MemberGroups []string
}

// RoleFor returns the role for a user in groups: Admin when any group is
// an admin group, otherwise Member when the user is admitted, otherwise
// ErrDenied. Group names compare exactly.
func (m RoleMap) RoleFor(groups []string) (Role, error) {
	in := func(set []string) bool {
		return slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(set, g) })
	}
	switch {
	case in(m.AdminGroups):
		return Admin, nil
	case len(m.MemberGroups) == 0 || in(m.MemberGroups):
		return Member, nil
	default:
		return "", ErrDenied
	}
}
