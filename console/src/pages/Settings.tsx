import { useState } from "react";
import { create } from "@bufbuild/protobuf";
import { settings as api } from "../api";
import { ModelPriceSchema, type ModelPrice, type Settings } from "../gen/control/v1/setting_pb";
import { Button, Card, ErrorBox, Field, inputClass, Note, Page, Spinner, useLoad } from "../components/ui";
import { useAdmin } from "../me";
import { FeatureModelCards } from "./FeatureModels";

// SettingsPage edits call recording and prices; members, whom the control
// API refuses UpdateSettings, see the same values read-only. The form
// appears once the settings have loaded, so Save never writes defaults over
// settings it has not read.
export function SettingsPage() {
  const { data, error, loading } = useLoad(() => api.getSettings({}), []);
  const s = data?.settings;
  if (!s) {
    return (
      <Page title="Settings">
        <ErrorBox error={error} />
        {loading && <Spinner label="Loading settings…" />}
      </Page>
    );
  }
  return <SettingsForm settings={s} />;
}

function SettingsForm({ settings: s }: { settings: Settings }) {
  const admin = useAdmin();
  const [detailed, setDetailed] = useState(s.detailedMode);
  const [retention, setRetention] = useState(s.detailedRetentionHours);
  const [keepDays, setKeepDays] = useState(s.conversationRetentionDays);
  const [prices, setPrices] = useState<ModelPrice[]>(s.prices);
  const [saveError, setSaveError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setSaving(true); setSaved(false);
    try {
      await api.updateSettings({ settings: { detailedMode: detailed, detailedRetentionHours: retention, conversationRetentionDays: keepDays, prices } });
      setSaveError(undefined); setSaved(true);
    } catch (e) { setSaveError(e); } finally { setSaving(false); }
  };
  const setPrice = (i: number, field: keyof ModelPrice, value: string) =>
    setPrices(prices.map((p, j) => (j === i ? { ...p, [field]: field === "modelId" ? value : Number(value) } : p)));

  return (
    <Page title="Settings" actions={admin && <Button kind="primary" onClick={() => void save()} disabled={saving}>{saving ? "Saving…" : "Save"}</Button>}>
      {!admin && <Note>Settings are managed by your Keygate administrators; you can read them here.</Note>}
      <ErrorBox error={saveError} />
      {saved && <div className="rounded-md bg-green-50 p-3 text-sm text-green-800">Saved.</div>}
      {/* A disabled fieldset makes every input in it read-only at once. */}
      <fieldset disabled={!admin} className="min-w-0 space-y-4">
        <Card title="Call recording">
          <div className="space-y-4">
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={detailed} onChange={(e) => setDetailed(e.target.checked)} />
              Detailed mode: record each request body and the raw response stream (they contain user code).
            </label>
            <Field label="Keep detailed records for (hours)" hint="Older request bodies and raw streams are deleted by a background job; 0 keeps them. Timings, usage and status are always kept.">
              <input className={inputClass} type="number" min={0} value={retention} onChange={(e) => setRetention(Number(e.target.value))} />
            </Field>
            <Field label="Erase conversations idle for (days)" hint="A background job erases each conversation not used for this long: its messages, checkpoints and images, and its calls' request bodies, raw streams and kept prompts. Call records stay, without content, for spend and audit. 0 keeps conversations.">
              <input className={inputClass} type="number" min={0} value={keepDays} onChange={(e) => setKeepDays(Number(e.target.value))} />
            </Field>
          </div>
        </Card>
        <FeatureModelCards admin={admin} />
        <Card title="Prices (USD per million tokens, for cost estimates)">
          <table className="w-full text-sm">
            <thead><tr className="text-left text-slate-500"><th>Upstream model id</th><th>Input</th><th>Output</th><th>Cache read</th><th>Cache write</th>{admin && <th />}</tr></thead>
            <tbody>
              {prices.map((p, i) => (
                <tr key={i}>
                  <td><input className={inputClass} value={p.modelId} onChange={(e) => setPrice(i, "modelId", e.target.value)} /></td>
                  {(["inputPerMillion", "outputPerMillion", "cacheReadPerMillion", "cacheWritePerMillion"] as const).map((f) => (
                    <td key={f}><input className={inputClass} type="number" min={0} step="0.01" value={p[f]} onChange={(e) => setPrice(i, f, e.target.value)} /></td>
                  ))}
                  {admin && <td><Button kind="danger" onClick={() => setPrices(prices.filter((_, j) => j !== i))}>Remove</Button></td>}
                </tr>
              ))}
            </tbody>
          </table>
          {prices.length === 0 && !admin && <p className="py-2 text-sm text-slate-500">No prices set: cost estimates stay empty.</p>}
          {admin && <div className="mt-3"><Button onClick={() => setPrices([...prices, create(ModelPriceSchema)])}>Add price</Button></div>}
        </Card>
      </fieldset>
    </Page>
  );
}
