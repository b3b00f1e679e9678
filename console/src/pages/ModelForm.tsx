import { useState } from "react";
import { create } from "@bufbuild/protobuf";
import { models as api, providers as providersApi } from "../api";
import { ModelSettingsSchema, ProviderKind, type Model, type ModelSettings, type ProviderProtocol } from "../gen/control/v1/model_pb";
import { Button, Card, ErrorBox, Field, inputClass, Spinner, useLoad } from "../components/ui";
import { HeadersEditor } from "../components/headers";

// ModelForm creates a model, or edits one when model is given. The API key
// is write-only: an empty key on edit keeps the stored one. protocols are
// the ones the API lists, in the order to offer them; a new model starts
// on the first.
export function ModelForm({ model, protocols, onDone, onCancel }: { model?: Model; protocols: ProviderProtocol[]; onDone: () => void; onCancel: () => void }) {
  const [s, setS] = useState<ModelSettings>(model?.settings ?? create(ModelSettingsSchema, { providerKind: protocols[0]?.kind ?? ProviderKind.UNSPECIFIED }));
  const [apiKey, setApiKey] = useState("");
  const [discovered, setDiscovered] = useState<string[]>();
  const [discovering, setDiscovering] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof ModelSettings>(k: K, v: ModelSettings[K]) => setS({ ...s, [k]: v });
  // A model is called at a provider of its own (the URL and key below) or
  // at one of the Providers page's, whose keys it then shares.
  const shared = useLoad(() => providersApi.listProviders({}).then((r) => r.providers, () => []), []).data ?? [];
  const own = !s.providerId;

  const discover = async () => {
    setDiscovering(true); setError(undefined);
    try {
      const p = shared.find((x) => x.id === s.providerId);
      const r = p
        ? await api.discoverModels({ providerKind: p.settings?.providerKind, baseUrl: p.settings?.baseUrl, keyFromProviderId: p.id, customHeaders: p.settings?.customHeaders })
        : await api.discoverModels({ providerKind: s.providerKind, baseUrl: s.baseUrl, apiKey, keyFromModelId: model?.id ?? "", customHeaders: s.customHeaders });
      setDiscovered(r.modelIds);
    } catch (e) { setError(e); } finally { setDiscovering(false); }
  };
  const save = async () => {
    setSaving(true); setError(undefined);
    try {
      if (model) await api.updateModel({ id: model.id, settings: s, apiKey });
      else await api.createModel({ settings: s, apiKey, enabled: true });
      onDone();
    } catch (e) { setError(e); } finally { setSaving(false); }
  };

  return (
    <Card title={model ? `Edit ${model.settings?.displayName}` : "Add a model"}>
      <form className="grid grid-cols-2 gap-4" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        {shared.length > 0 && (
          <div className="col-span-2">
            <Field label="Provider" hint="A provider of the Providers page brings its URL and its pool of keys.">
              <select aria-label="Provider" className={inputClass} value={s.providerId} onChange={(e) => set("providerId", e.target.value)}>
                <option value="">Its own: the URL and key below</option>
                {shared.map((p) => <option key={p.id} value={p.id}>{p.settings?.name}{p.settings?.region ? ` (${p.settings.region})` : ""} · {p.keys.length} keys</option>)}
              </select>
            </Field>
          </div>
        )}
        {own && <>
        <Field label="Protocol" hint={protocols.some((p) => p.cloud) ? "Cloud protocols (AWS Bedrock) need an account's region and credentials: add them as a provider on the Providers page, then choose it above." : undefined}>
          <select aria-label="Protocol" className={inputClass} value={s.providerKind} onChange={(e) => set("providerKind", Number(e.target.value))}>
            {protocols.filter((p) => !p.cloud || p.kind === s.providerKind).map((p) => <option key={p.kind} value={p.kind}>{p.title}</option>)}
          </select>
        </Field>
        <Field label="Base URL" hint="For example https://api.openai.com/v1; with 'full URL' it is used verbatim.">
          <input aria-label="Base URL" className={inputClass} value={s.baseUrl} onChange={(e) => set("baseUrl", e.target.value)} placeholder="https://api.openai.com/v1" />
        </Field>
        <Field label="API key" hint={model?.hasApiKey ? `Stored: ${model.apiKeyHint}. Leave empty to keep it.` : "Stored encrypted; never shown again."}>
          <input aria-label="API key" className={inputClass} type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
        </Field>
        <Field label="Use the base URL as the full endpoint URL">
          <input type="checkbox" checked={s.useFullUrl} onChange={(e) => set("useFullUrl", e.target.checked)} />
        </Field>
        <div className="col-span-2">
          <HeadersEditor value={s.customHeaders} hints={model?.customHeaderHints ?? []} onChange={(v) => set("customHeaders", v)} />
        </div>
        </>}
        <div className="col-span-2 flex items-end gap-2">
          <div className="flex-1">
            <Field label="Upstream model id">
              <input aria-label="Upstream model id" className={inputClass} list="discovered-models" value={s.modelId} onChange={(e) => set("modelId", e.target.value)} />
              <datalist id="discovered-models">{discovered?.map((id) => <option key={id} value={id} />)}</datalist>
            </Field>
          </div>
          <Button onClick={() => void discover()} disabled={discovering || (own && !s.baseUrl)}>Discover models</Button>
        </div>
        {discovering && <div className="col-span-2"><Spinner label="Asking the provider for its models…" /></div>}
        {discovered && (
          <div className="col-span-2 flex flex-wrap gap-1" aria-label="Discovered models">
            {discovered.length === 0 && <span className="text-sm text-slate-500">The provider listed no models; type the id by hand.</span>}
            {discovered.map((id) => (
              <button type="button" key={id} onClick={() => set("modelId", id)}
                className={`rounded border px-2 py-0.5 text-xs ${s.modelId === id ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-white hover:bg-slate-100"}`}>
                {id}
              </button>
            ))}
          </div>
        )}
        <Field label="Display name in Cursor">
          <input aria-label="Display name" className={inputClass} value={s.displayName} onChange={(e) => set("displayName", e.target.value)} placeholder={s.modelId} />
        </Field>
        <Field label="Group">
          <input className={inputClass} value={s.groupName} onChange={(e) => set("groupName", e.target.value)} />
        </Field>
        <Field label="Reasoning effort">
          <select className={inputClass} value={s.reasoningEffort} onChange={(e) => set("reasoningEffort", e.target.value)}>
            {["", "low", "medium", "high", "xhigh", "max"].map((v) => <option key={v} value={v}>{v || "provider default"}</option>)}
          </select>
        </Field>
        <Field label="Context window (tokens, 0 = default)">
          <input className={inputClass} type="number" min={0} value={Number(s.contextWindowTokens)} onChange={(e) => set("contextWindowTokens", BigInt(e.target.value || 0))} />
        </Field>
        <Field label="Max output (tokens, 0 = default)">
          <input className={inputClass} type="number" min={0} value={Number(s.maxOutputTokens)} onChange={(e) => set("maxOutputTokens", BigInt(e.target.value || 0))} />
        </Field>
        <Field label="Requests per minute (as an alias's target, 0 = no limit)">
          <input aria-label="Requests per minute" className={inputClass} type="number" min={0} value={Number(s.requestsPerMinute)} onChange={(e) => set("requestsPerMinute", BigInt(e.target.value || 0))} />
        </Field>
        <Field label="Tokens per minute (0 = no limit)">
          <input aria-label="Tokens per minute" className={inputClass} type="number" min={0} value={Number(s.tokensPerMinute)} onChange={(e) => set("tokensPerMinute", BigInt(e.target.value || 0))} />
        </Field>
        <Field label="Extra body parameters (JSON object)">
          <input className={inputClass} value={s.extraParamsJson} onChange={(e) => set("extraParamsJson", e.target.value)} placeholder='{"temperature": 0.2}' />
        </Field>
        <div className="col-span-2 flex gap-4 text-sm">
          <label className="flex items-center gap-1"><input type="checkbox" checked={s.supportsImages} onChange={(e) => set("supportsImages", e.target.checked)} /> Images</label>
          <label className="flex items-center gap-1"><input type="checkbox" checked={s.supportsTools} onChange={(e) => set("supportsTools", e.target.checked)} /> Tools</label>
        </div>
        <div className="col-span-2"><ErrorBox error={error} /></div>
        <div className="col-span-2 flex gap-2">
          <Button kind="primary" type="submit" disabled={saving}>{saving ? "Saving…" : "Save"}</Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}
