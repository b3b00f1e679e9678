import { useState } from "react";
import { create } from "@bufbuild/protobuf";
import { models as modelsApi, providers as api } from "../api";
import { KeyStrategy, ProviderSettingsSchema, type Provider, type ProviderKey, type ProviderSettings } from "../gen/control/v1/provider_pb";
import { CredentialSource, ProviderKind, type ProviderProtocol } from "../gen/control/v1/model_pb";
import { CloudFields } from "../components/cloud";
import { baseUrlFor, effectiveSource } from "../components/cloudSettings";
import { Badge, Button, Card, ErrorBox, Field, inputClass, Note, Page, Spinner, useLoad } from "../components/ui";
import { useAdmin } from "../me";
import { HeaderHints, HeadersEditor } from "../components/headers";
import { HealthBadge, LastError } from "./Health";

// ProviderForm creates a provider with its first key, or edits a
// provider's settings (its keys are managed on its card).
function ProviderForm({ provider, protocols, onDone, onCancel }: { provider?: Provider; protocols: ProviderProtocol[]; onDone: () => void; onCancel: () => void }) {
  const [s, setS] = useState<ProviderSettings>(provider?.settings ?? create(ProviderSettingsSchema, { providerKind: protocols[0]?.kind ?? ProviderKind.UNSPECIFIED }));
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof ProviderSettings>(k: K, v: ProviderSettings[K]) => setS({ ...s, [k]: v });
  // A cloud protocol declares its account settings; the form shows those,
  // and the key field only while the credentials are keys stored here.
  const cloud = protocols.find((p) => p.kind === s.providerKind)?.cloud;
  const keyed = !cloud || effectiveSource(cloud, s.cloud) === CredentialSource.KEYS;
  const save = async () => {
    setSaving(true); setError(undefined);
    try {
      if (provider) await api.updateProvider({ id: provider.id, settings: s });
      else await api.createProvider({ settings: s, keys: apiKey ? [{ apiKey, weight: 1 }] : [] });
      onDone();
    } catch (e) { setError(e); } finally { setSaving(false); }
  };
  return (
    <Card title={provider ? `Edit ${provider.settings?.name}` : "Add a provider"}>
      <form className="grid grid-cols-2 gap-4" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <Field label="Protocol">
          <select aria-label="Provider protocol" className={inputClass} value={s.providerKind} onChange={(e) => {
            const kind = Number(e.target.value) as ProviderKind;
            const decl = protocols.find((p) => p.kind === kind)?.cloud;
            setS({ ...s, providerKind: kind, cloud: undefined, baseUrl: decl && !s.baseUrl ? baseUrlFor(decl) : s.baseUrl });
          }}>
            {protocols.map((p) => <option key={p.kind} value={p.kind}>{p.title}</option>)}
          </select>
        </Field>
        <Field label="Base URL" hint="Every key of the provider is bound to this URL's origin.">
          <input aria-label="Provider base URL" className={inputClass} value={s.baseUrl} onChange={(e) => set("baseUrl", e.target.value)} placeholder="https://api.openai.com/v1" />
        </Field>
        <Field label="Name" hint="Defaults to the base URL's host.">
          <input aria-label="Provider name" className={inputClass} value={s.name} onChange={(e) => set("name", e.target.value)} />
        </Field>
        <Field label="Region or deployment">
          <input aria-label="Region" className={inputClass} value={s.region} onChange={(e) => set("region", e.target.value)} placeholder="eu-west" />
        </Field>
        <Field label="Key selection">
          <select aria-label="Key selection" className={inputClass} value={s.keyStrategy} onChange={(e) => set("keyStrategy", Number(e.target.value))}>
            <option value={KeyStrategy.ROUND_ROBIN}>Round-robin</option>
            <option value={KeyStrategy.WEIGHTED}>By weight</option>
          </select>
        </Field>
        <Field label="Cool-down of a refused key (seconds, 0 = default)" hint="Used when the provider sends no Retry-After with a 429 or 401.">
          <input aria-label="Cool-down" className={inputClass} type="number" min={0} value={Number(s.coolDownSeconds)} onChange={(e) => set("coolDownSeconds", BigInt(e.target.value || 0))} />
        </Field>
        {cloud && <CloudFields decl={cloud} value={s.cloud} onChange={(c) => setS({ ...s, cloud: c, baseUrl: !provider && (!s.baseUrl || s.baseUrl === baseUrlFor(cloud, s.cloud)) ? baseUrlFor(cloud, c) : s.baseUrl })} />}
        {!provider && keyed && (
          <Field label={cloud?.keyFormat ? `Credentials (${cloud.keyFormat})` : "API key"} hint="Stored encrypted; never shown again. Add more keys on the provider's card.">
            <input aria-label="Provider API key" className={inputClass} type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
          </Field>
        )}
        <Field label="Use the base URL as the full endpoint URL">
          <input type="checkbox" checked={s.useFullUrl} onChange={(e) => set("useFullUrl", e.target.checked)} />
        </Field>
        <div className="col-span-2">
          <HeadersEditor value={s.customHeaders} hints={provider?.customHeaderHints ?? []} onChange={(v) => set("customHeaders", v)} />
        </div>
        <div className="col-span-2"><ErrorBox error={error} /></div>
        <div className="col-span-2 flex gap-2">
          <Button kind="primary" type="submit" disabled={saving}>{saving ? "Saving…" : "Save provider"}</Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}

// KeyRow is one key of a pool: masked, its health and last error, and the
// administrator's actions.
function KeyRow({ provider, k, act }: { provider: Provider; k: ProviderKey; act: (f: () => Promise<unknown>) => void }) {
  const admin = useAdmin();
  const [rotating, setRotating] = useState(false);
  const [secret, setSecret] = useState("");
  const ids = { providerId: provider.id, keyId: k.id };
  return (
    <li data-testid="key-row" className="space-y-1 py-2">
      <div className="flex flex-wrap items-center gap-3">
        <code className="rounded bg-slate-100 px-1.5 py-0.5 text-sm">{k.apiKeyHint}</code>
        <span className="text-xs text-slate-500">weight {k.weight}</span>
        <HealthBadge health={k.health} />
        {k.disabledReason && <span className="text-xs text-red-700">{k.disabledReason}</span>}
        <div className="flex-1" />
        {admin && (
          <>
            <Button onClick={() => setRotating(!rotating)}>Rotate</Button>
            <Button onClick={() => act(() => api.setProviderKeyEnabled({ ...ids, enabled: !k.enabled }))}>{k.enabled ? "Disable" : "Enable"}</Button>
            <Button kind="danger" onClick={() => confirm("Delete this key?") && act(() => api.deleteProviderKey(ids))}>Delete key</Button>
          </>
        )}
      </div>
      <LastError health={k.health} />
      {rotating && (
        <form className="flex gap-2" onSubmit={(e) => { e.preventDefault(); act(() => api.updateProviderKey({ ...ids, apiKey: secret })); setRotating(false); setSecret(""); }}>
          <input aria-label="New API key" className={inputClass} type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} placeholder="the new key" />
          <Button kind="primary" type="submit" disabled={!secret}>Save new key</Button>
        </form>
      )}
    </li>
  );
}

// ProvidersPage lists the providers with their key pools. Only
// administrators reach it (the control API refuses members every provider
// procedure, listing included: keys are never theirs to see, not even
// masked).
export function ProvidersPage() {
  const admin = useAdmin();
  const { data, error, loading, reload } = useLoad(() => (admin ? api.listProviders({}) : Promise.resolve(undefined)), [admin]);
  const protocols = useLoad(() => modelsApi.listModels({}), []).data?.protocols ?? [];
  const [editing, setEditing] = useState<Provider | "new">();
  const [adding, setAdding] = useState<Record<string, string>>({});
  const [actionError, setActionError] = useState<unknown>();
  const act = async (f: () => Promise<unknown>) => {
    try { await f(); setActionError(undefined); reload(); } catch (e) { setActionError(e); }
  };
  if (!admin) return <Page title="Providers"><Note>Providers and their keys are managed by your Keygate administrators.</Note></Page>;
  const list = data?.providers ?? [];
  const disabled = list.flatMap((p) => p.keys.filter((k) => k.disabledByKeygate).map((k) => `${p.settings?.name} ${k.apiKeyHint}`));
  return (
    <Page title="Providers" actions={<Button kind="primary" disabled={!protocols.length} onClick={() => setEditing("new")}>Add provider</Button>}>
      {disabled.length > 0 && (
        <div role="alert" data-testid="disabled-keys" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          Keygate took {disabled.length === 1 ? "a key" : `${disabled.length} keys`} out of service after repeated authentication failures: {disabled.join(", ")}. Rotate or delete {disabled.length === 1 ? "it" : "them"}.
        </div>
      )}
      <ErrorBox error={error ?? actionError} />
      {editing && <ProviderForm provider={editing === "new" ? undefined : editing} protocols={protocols} onCancel={() => setEditing(undefined)}
        onDone={() => { setEditing(undefined); reload(); }} />}
      {loading && !data && <Spinner label="Loading providers…" />}
      {data && list.length === 0 && !editing && <Card><p className="text-sm text-slate-600">No providers yet. Add one, or add a model with its own URL and key.</p></Card>}
      {list.map((p) => (
        <Card key={p.id} title={<span data-testid="provider-name">{p.settings?.name} {p.settings?.region && <Badge tone="indigo">{p.settings.region}</Badge>}</span>}>
          <div data-testid="provider-card" className="space-y-2">
            <div className="flex flex-wrap items-center gap-3 text-xs text-slate-500">
              <span>{protocols.find((x) => x.kind === p.settings?.providerKind)?.name ?? "?"} · {p.settings?.baseUrl}</span>
              <span>{p.settings?.keyStrategy === KeyStrategy.WEIGHTED ? "keys by weight" : "keys round-robin"}</span>
              <span>{p.modelIds.length} {p.modelIds.length === 1 ? "model" : "models"}</span>
              <HeaderHints hints={p.customHeaderHints} />
              <div className="flex-1" />
              <Button onClick={() => setEditing(p)}>Edit provider</Button>
              <Button kind="danger" onClick={() => { if (confirm(`Delete ${p.settings?.name} and its keys?`)) void act(() => api.deleteProvider({ id: p.id })); }}>Delete provider</Button>
            </div>
            <ul className="divide-y divide-slate-100">{p.keys.map((k) => <KeyRow key={k.id} provider={p} k={k} act={(f) => void act(f)} />)}</ul>
            {p.keys.length === 0 && <p className="text-sm text-slate-500">No key yet: models on this provider cannot be called.</p>}
            <form className="flex gap-2" onSubmit={(e) => { e.preventDefault(); void act(() => api.addProviderKey({ providerId: p.id, key: { apiKey: adding[p.id] ?? "", weight: 1 } })); setAdding({ ...adding, [p.id]: "" }); }}>
              <input aria-label="Add a key" className={inputClass} type="password" autoComplete="off" placeholder="another API key for this provider"
                value={adding[p.id] ?? ""} onChange={(e) => setAdding({ ...adding, [p.id]: e.target.value })} />
              <Button type="submit" disabled={!adding[p.id]}>Add key</Button>
            </form>
          </div>
        </Card>
      ))}
    </Page>
  );
}
