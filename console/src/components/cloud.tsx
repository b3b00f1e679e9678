import { create } from "@bufbuild/protobuf";
import { CloudSettingsSchema, CredentialSource, type CloudDeclaration, type CloudSettings } from "../gen/control/v1/model_pb";
import { Field, inputClass } from "./ui";
import { effectiveSource, sourceLabels } from "./cloudSettings";

// The labels of the account settings a cloud protocol may declare; the
// form shows exactly the fields the protocol's declaration names.
const fieldLabels: Record<string, { label: string; placeholder: string; hint?: string }> = {
  region: { label: "Cloud region", placeholder: "us-east-1" },
  project: { label: "Project", placeholder: "my-project" },
  profile: { label: "Shared-config profile", placeholder: "bedrock", hint: "Read from the Keygate host's shared config and credentials files." },
  role_arn: { label: "Role ARN", placeholder: "arn:aws:iam::123456789012:role/keygate" },
  web_identity_token_file: { label: "Web identity token file", placeholder: "/var/run/secrets/eks.amazonaws.com/serviceaccount/token" },
};

// Which fields a credential source needs beside the always-shown ones.
const sourceFields: Record<number, string[]> = {
  [CredentialSource.PROFILE]: ["profile"],
  [CredentialSource.WEB_IDENTITY]: ["role_arn", "web_identity_token_file"],
};
const sourceOnly = new Set(["profile", "role_arn", "web_identity_token_file"]);

// CloudFields edits a cloud provider's account settings: nothing secret is
// typed here (secrets go in the key field, sealed).
export function CloudFields({ decl, value, onChange }: { decl: CloudDeclaration; value?: CloudSettings; onChange: (c: CloudSettings) => void }) {
  const c = value ?? create(CloudSettingsSchema, {});
  const source = effectiveSource(decl, c);
  const set = <K extends keyof CloudSettings>(k: K, v: CloudSettings[K]) => onChange({ ...c, [k]: v });
  const key = (f: string) => f.replace(/_([a-z])/g, (_, x: string) => x.toUpperCase()) as "region" | "project" | "profile" | "roleArn" | "webIdentityTokenFile";
  const shown = decl.fields.filter((f) => !sourceOnly.has(f) || (sourceFields[source] ?? []).includes(f));
  return (
    <>
      <Field label="Credentials from">
        <select aria-label="Credential source" className={inputClass} value={source} onChange={(e) => set("credentialSource", Number(e.target.value))}>
          {decl.credentialSources.map((s) => <option key={s} value={s}>{sourceLabels[s] ?? String(s)}</option>)}
        </select>
      </Field>
      {shown.map((f) => (
        <Field key={f} label={fieldLabels[f]?.label ?? f} hint={fieldLabels[f]?.hint}>
          <input aria-label={fieldLabels[f]?.label ?? f} className={inputClass} value={c[key(f)]} placeholder={fieldLabels[f]?.placeholder}
            onChange={(e) => set(key(f), e.target.value)} />
        </Field>
      ))}
    </>
  );
}
