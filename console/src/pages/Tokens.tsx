import { useState } from "react";
import { createToken, listTokens, revokeToken, type GatewayToken } from "../account";
import { setup } from "../api";
import { Badge, Button, Card, Copyable, ErrorBox, Field, inputClass, Spinner, useLoad } from "../components/ui";

function when(s?: string): string {
  return s ? new Date(s).toLocaleString() : "–";
}

function status(t: GatewayToken): { label: string; tone: "green" | "red" | "slate" } {
  if (t.revokedAt) return { label: "revoked", tone: "red" };
  if (t.expiresAt && new Date(t.expiresAt) < new Date()) return { label: "expired", tone: "slate" };
  return { label: "active", tone: "green" };
}

// Created shows a new token's text, the one time the server sends it, with
// how to hand it to Cursor.
function Created({ secret, name, onDone }: { secret: string; name: string; onDone: () => void }) {
  const { data } = useLoad(() => setup.getCursorSetup({}), []);
  const command = data?.setupCommand || `keygate cursor setup --proxy ${data?.proxyUrl.replace(/^http:\/\//, "") || "<proxy address>"}`;
  return (
    <div data-testid="new-token" className="space-y-3 rounded-md border border-green-200 bg-green-50 p-3">
      <p className="text-sm font-medium text-green-900">
        Token “{name}” created. Copy it now: Keygate shows it only this once and keeps only a hash.
      </p>
      <Copyable label="Personal gateway token" value={secret} testId="new-token-secret" />
      {data?.proxyUrl && <Copyable label="Proxy address" value={data.proxyUrl} />}
      <Copyable label="On the machine that runs Cursor" value={`KEYGATE_PROXY_TOKEN=${secret} ${command}`} secret />
      <p className="text-xs text-slate-600">
        The environment variable keeps the token out of the shell's process list; the command sets Cursor's http.proxy and trusts
        Keygate's CA certificate.
      </p>
      <Button onClick={onDone}>Done, I have copied it</Button>
    </div>
  );
}

// onChange runs after a token was created or revoked (both are audited).
export function TokensCard({ admin, local, onChange }: { admin: boolean; local: boolean; onChange?: () => void }) {
  const [all, setAll] = useState(false);
  const { data, error, loading, reload } = useLoad(() => listTokens(all), [all]);
  const [name, setName] = useState("");
  const [days, setDays] = useState(0);
  const [created, setCreated] = useState<{ secret: string; name: string }>();
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const create = async () => {
    setBusy(true);
    try {
      const r = await createToken(name.trim(), days);
      setCreated({ secret: r.secret, name: r.token?.name ?? name.trim() });
      setName(""); setActionError(undefined); reload(); onChange?.();
    } catch (e) { setActionError(e); } finally { setBusy(false); }
  };
  const revoke = async (t: GatewayToken) => {
    if (!window.confirm(`Revoke the token “${t.name}”? Cursor windows that use it stop reaching Keygate.`)) return;
    try { await revokeToken(t.id); setActionError(undefined); reload(); onChange?.(); } catch (e) { setActionError(e); }
  };

  return (
    <Card title="Personal gateway tokens">
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          A personal token lets Cursor use Keygate's proxy as you. Create one per machine, and revoke it when the machine is gone.
          {local && " This is a local install: its proxy serves only this machine and does not ask for a token; tokens matter once Keygate serves a team."}
        </p>
        <ErrorBox error={error ?? actionError} />
        {created && <Created secret={created.secret} name={created.name} onDone={() => setCreated(undefined)} />}
        <form className="flex items-end gap-3" onSubmit={(e) => { e.preventDefault(); void create(); }}>
          <div className="flex-1">
            <Field label="Token name" hint="Say where it is used, for example “work laptop”.">
              <input className={inputClass} value={name} onChange={(e) => setName(e.target.value)} placeholder="work laptop" />
            </Field>
          </div>
          <div className="w-40">
            <Field label="Expires after" hint="Keygate bounds every token's lifetime (90 days unless your administrators chose otherwise).">
              <select className={inputClass} value={days} onChange={(e) => setDays(Number(e.target.value))}>
                {[0, 7, 30].map((d) => <option key={d} value={d}>{d === 0 ? "the longest allowed" : `${d} days`}</option>)}
              </select>
            </Field>
          </div>
          <div className="pb-5"><Button kind="primary" type="submit" disabled={busy || !name.trim()}>{busy ? "Creating…" : "Create token"}</Button></div>
        </form>
        {admin && (
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Show everyone's tokens
          </label>
        )}
        {loading && <Spinner label="Loading tokens…" />}
        {data && data.length === 0 && <p className="text-sm text-slate-500">No tokens yet.</p>}
        {data && data.length > 0 && (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500">
                <th className="py-1">Name</th><th>Token</th>{all && <th>Owner</th>}<th>Created</th><th>Last used</th><th>Expires</th><th>Status</th><th />
              </tr>
            </thead>
            <tbody>
              {data.map((t) => {
                const s = status(t);
                return (
                  <tr key={t.id} data-testid="token-row" className="border-b border-slate-100 last:border-0">
                    <td className="py-2 font-medium">{t.name}</td>
                    <td><code className="text-xs">{t.hint}</code></td>
                    {all && <td>{t.ownerName || t.ownerId}</td>}
                    <td>{when(t.createdAt)}</td>
                    <td>{t.lastUsedAt ? when(t.lastUsedAt) : "never"}</td>
                    <td>{t.expiresAt ? when(t.expiresAt) : "never"}</td>
                    <td><Badge tone={s.tone}>{s.label}</Badge></td>
                    <td className="text-right">{!t.revokedAt && <Button kind="danger" onClick={() => void revoke(t)}>Revoke</Button>}</td>
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
