import { CredentialSource, type CloudDeclaration, type CloudSettings } from "../gen/control/v1/model_pb";

// What the cloud settings form and the Providers page share: kept apart from
// the form component so that fast refresh can reload it.

export const sourceLabels: Record<number, string> = {
  [CredentialSource.KEYS]: "Keys stored in Keygate (sealed)",
  [CredentialSource.PROFILE]: "Shared-config profile",
  [CredentialSource.WEB_IDENTITY]: "Web identity token (Kubernetes service account)",
  [CredentialSource.INSTANCE_ROLE]: "Instance role (metadata service)",
  [CredentialSource.DEFAULT]: "Default credential chain",
};

// effectiveSource reads UNSPECIFIED as the declaration's first source.
export function effectiveSource(decl: CloudDeclaration, c?: CloudSettings): CredentialSource {
  const s = c?.credentialSource ?? CredentialSource.UNSPECIFIED;
  return s === CredentialSource.UNSPECIFIED ? (decl.credentialSources[0] ?? CredentialSource.KEYS) : s;
}

// baseUrlFor fills a protocol's vendor endpoint template.
export function baseUrlFor(decl: CloudDeclaration, c?: { region?: string; project?: string }): string {
  if (!decl.baseUrlTemplate) return "";
  return decl.baseUrlTemplate.replaceAll("{region}", c?.region || "us-east-1").replaceAll("{project}", c?.project || "{project}");
}
