import { useState } from "react";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { serviceAccounts as api } from "../api";
import { ServiceAccountRole, type ServiceAccount } from "../gen/control/v1/serviceaccount_pb";
import { Badge, Button, Card, Copyable, ErrorBox, Field, inputClass, Spinner, useLoad } from "../components/ui";

function when(t?: Timestamp): string {
  return t ? timestampDate(t).toLocaleString() : "–";
}

function status(a: ServiceAccount): { label: string; tone: "green" | "red" | "slate" } {
  if (a.revokeTime) return { label: "revoked", tone: "red" };
  if (a.expireTime && timestampDate(a.expireTime) < new Date()) return { label: "expired", tone: "slate" };
  return { label: "active", tone: "green" };
}

const roles: { value: ServiceAccountRole; label: string }[] = [
  { value: ServiceAccountRole.READ_ONLY, label: "read-only" },
  { value: ServiceAccountRole.ADMIN, label: "admin" },
];

// ServiceAccountsCard lets an administrator give automation (a deploy
// pipeline, a monitoring job) a key for the control API with a role: admin
// may change providers and models; read-only may read configuration and
// usage only. The key is shown once; Keygate keeps a hash. onChange runs
// after a creation or revocation (both are audited).
export function ServiceAccountsCard({ onChange }: { onChange?: () => void }) {
  const { data, error, loading, reload } = useLoad(() => api.listServiceAccounts({}).then((r) => r.serviceAccounts), []);
  const [name, setName] = useState("");
  const [role, setRole] = useState(ServiceAccountRole.READ_ONLY);
  const [days, setDays] = useState(90);
  const [created, setCreated] = useState<{ key: string; name: string }>();
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const create = async () => {
    setBusy(true);
    try {
      const r = await api.createServiceAccount({ name: name.trim(), role, days });
      setCreated({ key: r.key, name: r.serviceAccount?.name ?? name.trim() });
      setName(""); setActionError(undefined); reload(); onChange?.();
    } catch (e) { setActionError(e); } finally { setBusy(false); }
  };
  const revoke = async (a: ServiceAccount) => {
    if (!window.confirm(`Revoke the service account “${a.name}”? Whatever uses its key stops reaching the control API.`)) return;
    try { await api.revokeServiceAccount({ id: a.id }); setActionError(undefined); reload(); onChange?.(); } catch (e) { setActionError(e); }
  };

  return (
    <Card title="Service accounts">
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          A service account's key lets automation call the control API without a browser session, sent as
          <code> Authorization: Bearer &lt;key&gt;</code>. An admin key may change providers and models; a read-only key may read
          configuration and usage, never conversations, memories or call details.
        </p>
        <ErrorBox error={error ?? actionError} />
        {created && (
          <div data-testid="new-service-key" className="space-y-3 rounded-md border border-green-200 bg-green-50 p-3">
            <p className="text-sm font-medium text-green-900">
              Service account “{created.name}” created. Copy its key now: Keygate shows it only this once and keeps only a hash.
            </p>
            <Copyable label="Service account key" value={created.key} testId="new-service-key-secret" />
            <Button onClick={() => setCreated(undefined)}>Done, I have copied it</Button>
          </div>
        )}
        <form className="flex items-end gap-3" onSubmit={(e) => { e.preventDefault(); void create(); }}>
          <div className="flex-1">
            <Field label="Service account name" hint="Say what uses it, for example “deploy pipeline”.">
              <input className={inputClass} aria-label="Service account name" value={name} onChange={(e) => setName(e.target.value)} placeholder="deploy pipeline" />
            </Field>
          </div>
          <div className="w-36">
            <Field label="Role">
              <select className={inputClass} value={role} onChange={(e) => setRole(Number(e.target.value))}>
                {roles.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
              </select>
            </Field>
          </div>
          <div className="w-36">
            <Field label="Expires after">
              <select className={inputClass} value={days} onChange={(e) => setDays(Number(e.target.value))}>
                {[30, 90, 365].map((d) => <option key={d} value={d}>{d} days</option>)}
              </select>
            </Field>
          </div>
          <div className="pb-5"><Button kind="primary" type="submit" disabled={busy || !name.trim()}>{busy ? "Creating…" : "Create service account"}</Button></div>
        </form>
        {loading && <Spinner label="Loading service accounts…" />}
        {data && data.length === 0 && <p className="text-sm text-slate-500">No service accounts yet.</p>}
        {data && data.length > 0 && (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500">
                <th className="py-1">Name</th><th>Role</th><th>Key</th><th>Created by</th><th>Last used</th><th>Expires</th><th>Status</th><th />
              </tr>
            </thead>
            <tbody>
              {data.map((a) => {
                const s = status(a);
                return (
                  <tr key={a.id} data-testid="service-account-row" className="border-b border-slate-100 last:border-0">
                    <td className="py-2 font-medium">{a.name}</td>
                    <td>{a.role === ServiceAccountRole.ADMIN ? "admin" : "read-only"}</td>
                    <td><code className="text-xs">{a.hint}</code></td>
                    <td>{a.createdBy}</td>
                    <td>{a.lastUseTime ? when(a.lastUseTime) : "never"}</td>
                    <td>{when(a.expireTime)}</td>
                    <td><Badge tone={s.tone}>{s.label}</Badge></td>
                    <td className="text-right">{!a.revokeTime && <Button kind="danger" onClick={() => void revoke(a)}>Revoke</Button>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </Card>
  );
}
