package control

import (
	"slices"
	"strings"

	"keygate/domain/llm"
	"keygate/ports"
)

// MaxCloudField bounds each cloud account setting (an ARN is at most 2048
// characters; a path or region far less).
const MaxCloudField = 2048

// checkCloud trims c and checks it against what kind's protocol declares:
// a protocol without cloud settings takes none (they are cleared), a cloud
// one only the sources it offers and the fields it shows, each source with
// the settings it needs.
func checkCloud(protocols ports.ProviderProtocols, kind llm.ProviderKind, c ports.CloudSettings) (ports.CloudSettings, error) {
	var decl *ports.ProviderCloud
	for _, p := range protocols.Protocols() {
		if p.Kind == kind {
			decl = p.Cloud
		}
	}
	if decl == nil {
		return ports.CloudSettings{}, nil
	}
	fields := []struct {
		name string
		v    *string
	}{{"region", &c.Region}, {"project", &c.Project}, {"profile", &c.Profile}, {"role_arn", &c.RoleARN},
		{"web_identity_token_file", &c.WebIdentityTokenFile}}
	for _, f := range fields {
		*f.v = strings.TrimSpace(*f.v)
		if err := checkText("cloud."+f.name, *f.v, MaxCloudField); err != nil {
			return c, err
		}
		if *f.v != "" && !slices.Contains(decl.Fields, f.name) {
			*f.v = "" // a field the protocol does not show is not kept
		}
	}
	if !slices.Contains(decl.Sources, c.Source) {
		names := make([]string, len(decl.Sources))
		for i, s := range decl.Sources {
			names[i] = sourceName(s)
		}
		return c, invalid("cloud.credential_source", "choose "+joinWords(names, "or"))
	}
	switch c.Source {
	case ports.CredentialProfile:
		if c.Profile == "" {
			return c, invalid("cloud.profile", "name the shared-config profile to take credentials from")
		}
	case ports.CredentialWebIdentity:
		if c.RoleARN == "" || c.WebIdentityTokenFile == "" {
			return c, invalid("cloud.role_arn", "web identity needs the role's ARN and the token file's path")
		}
	}
	if decl.Check != nil {
		if err := decl.Check(c); err != nil {
			return c, invalid("cloud", err.Error())
		}
	}
	return c, nil
}

// sourceName is a credential source as people read it.
func sourceName(s ports.CredentialSource) string {
	switch s {
	case ports.CredentialKeys:
		return "keys"
	case ports.CredentialProfile:
		return "a shared-config profile"
	case ports.CredentialWebIdentity:
		return "web identity"
	case ports.CredentialInstanceRole:
		return "the instance role"
	default:
		return "the default chain"
	}
}
