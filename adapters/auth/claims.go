package auth

import (
	"fmt"
	"strings"

	"keygate/domain/access"
	"keygate/domain/identity"
)

// principalFromClaims maps ID token claims to a principal: the user id,
// display name and groups come from the configured claims, the role from
// the role map. Groups may be a list or a single comma-separated string.
// It reports the user's groups to recordGroups, when not nil, also when
// the role map refuses them.
func principalFromClaims(claims map[string]any, cfg Config, recordGroups func(user string, groups []string)) (access.Principal, error) {
	user, _ := claims[cfg.UserClaim].(string)
	if strings.TrimSpace(user) == "" {
		return access.Principal{}, fmt.Errorf("id token has no %q claim", cfg.UserClaim)
	}
	name, _ := claims[cfg.NameClaim].(string)
	var groups []string
	switch v := claims[cfg.GroupsClaim].(type) {
	case []any:
		for _, g := range v {
			if s, ok := g.(string); ok {
				groups = append(groups, s)
			}
		}
	case string:
		for _, g := range strings.Split(v, ",") {
			groups = append(groups, strings.TrimSpace(g))
		}
	}
	if recordGroups != nil {
		recordGroups(user, groups)
	}
	role, err := cfg.Roles.RoleFor(groups)
	if err != nil {
		return access.Principal{}, fmt.Errorf("user %s: %w", user, err)
	}
	return access.Principal{Identity: identity.Identity{UserID: user, Name: name}, Role: role}, nil
}
