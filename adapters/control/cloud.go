package control

import (
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/ports"
)

var (
	sourceToProto = map[ports.CredentialSource]controlv1.CredentialSource{
		ports.CredentialKeys:         controlv1.CredentialSource_CREDENTIAL_SOURCE_KEYS,
		ports.CredentialProfile:      controlv1.CredentialSource_CREDENTIAL_SOURCE_PROFILE,
		ports.CredentialWebIdentity:  controlv1.CredentialSource_CREDENTIAL_SOURCE_WEB_IDENTITY,
		ports.CredentialInstanceRole: controlv1.CredentialSource_CREDENTIAL_SOURCE_INSTANCE_ROLE,
		ports.CredentialDefault:      controlv1.CredentialSource_CREDENTIAL_SOURCE_DEFAULT,
	}
	sourceFromProto = func() map[controlv1.CredentialSource]ports.CredentialSource {
		m := map[controlv1.CredentialSource]ports.CredentialSource{}
		for k, v := range sourceToProto {
			m[v] = k
		}
		return m
	}()
)

// cloudFromProto reads account settings; an unknown source value is kept
// unknown ("?"), so that validation refuses it instead of reading keys.
func cloudFromProto(c *controlv1.CloudSettings) ports.CloudSettings {
	if c == nil {
		return ports.CloudSettings{}
	}
	src, ok := sourceFromProto[c.GetCredentialSource()]
	if !ok && c.GetCredentialSource() != controlv1.CredentialSource_CREDENTIAL_SOURCE_UNSPECIFIED {
		src = "?"
	}
	return ports.CloudSettings{Region: c.GetRegion(), Project: c.GetProject(), Source: src, Profile: c.GetProfile(),
		RoleARN: c.GetRoleArn(), WebIdentityTokenFile: c.GetWebIdentityTokenFile()}
}

// cloudToProto is nil for a provider that is not a cloud one.
func cloudToProto(c ports.CloudSettings) *controlv1.CloudSettings {
	if c.IsZero() {
		return nil
	}
	return &controlv1.CloudSettings{Region: c.Region, Project: c.Project, CredentialSource: sourceToProto[c.Source],
		Profile: c.Profile, RoleArn: c.RoleARN, WebIdentityTokenFile: c.WebIdentityTokenFile}
}

// cloudDeclarationToProto describes a cloud protocol's form; the base URL
// template is the protocol's vendor endpoint with placeholders.
func cloudDeclarationToProto(c *ports.ProviderCloud) *controlv1.CloudDeclaration {
	if c == nil {
		return nil
	}
	out := &controlv1.CloudDeclaration{Fields: c.Fields, KeyFormat: c.KeyFormat}
	for _, s := range c.Sources {
		out.CredentialSources = append(out.CredentialSources, sourceToProto[s])
	}
	if c.BaseURL != nil {
		out.BaseUrlTemplate = c.BaseURL(ports.CloudSettings{Region: "{region}", Project: "{project}"})
	}
	return out
}
