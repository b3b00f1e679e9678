import { useState } from "react";
import { aliases as aliasApi, models as modelApi, settings as api } from "../api";
import type { TabModel } from "../gen/control/v1/setting_pb";
import { Button, Card, ErrorBox, Field, inputClass, Spinner, useLoad } from "../components/ui";
import { ModelTest } from "./ModelTest";

// sourceText says where the Tab model in force comes from.
function sourceText(t: TabModel): string {
  if (!t.modelId) {
    if (t.problem) return `Keygate serves no Tab: ${t.problem}. Cursor's own Tab is used.`;
    return t.source === "setting"
      ? "Tab is turned off here: Cursor's own Tab is used."
      : "No Tab model chosen: Cursor's own Tab is used.";
  }
  const from = t.source === "configuration" ? "from KEYGATE_TAB_MODEL" : "saved here";
  return `Cursor Tab runs on ${t.displayName || t.modelId} (${from}).`;
}

// TabModelCard chooses the model or alias that serves Cursor Tab. Only an
// administrator may change it; the control API refuses SetTabModel to
// members, who see the choice read-only.
export function TabModelCard({ admin }: { admin: boolean }) {
  const current = useLoad(() => api.getTabModel({}), []);
  const models = useLoad(() => modelApi.listModels({}), []);
  const aliases = useLoad(() => aliasApi.listAliases({}), []);
  const [choice, setChoice] = useState<string>();
  const [tab, setTab] = useState<TabModel>();
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);

  const shown = tab ?? current.data?.tabModel;
  if (!shown) {
    return (
      <Card title="Cursor Tab">
        <ErrorBox error={current.error} />
        {current.loading && <Spinner label="Loading the Tab model…" />}
      </Card>
    );
  }
  const selected = choice ?? shown.modelId;
  const options = [
    ...(models.data?.models ?? []).filter((m) => m.enabled).map((m) => ({ id: m.id, name: m.settings?.displayName || m.id, alias: false })),
    ...(aliases.data?.aliases ?? []).filter((a) => a.enabled).map((a) => ({ id: a.id, name: a.settings?.displayName || a.id, alias: true })),
  ];
  const chosenModel = options.find((o) => o.id === selected && !o.alias);

  const apply = async (req: { model?: string; useConfiguration?: boolean }) => {
    setSaving(true);
    try {
      const res = await api.setTabModel(req);
      setTab(res.tabModel); setChoice(undefined); setError(undefined);
    } catch (e) { setError(e); } finally { setSaving(false); }
  };

  return (
    <Card title="Cursor Tab">
      <div className="space-y-3">
        <p className="text-sm text-slate-700" data-testid="tab-source">{sourceText(shown)}</p>
        <ErrorBox error={error ?? models.error ?? aliases.error} />
        <Field label="Tab model" hint="A fill-in-the-middle model (OpenAI Completions with suffix, Mistral FIM) or a fast chat model. Tab asks it on nearly every pause in typing.">
          <select className={inputClass} value={selected} disabled={!admin} onChange={(e) => setChoice(e.target.value)}>
            <option value="">None: use Cursor's own Tab</option>
            {options.map((o) => <option key={o.id} value={o.id}>{o.name}{o.alias ? " (alias)" : ""}</option>)}
          </select>
        </Field>
        {admin && (
          <div className="flex gap-2">
            <Button kind="primary" disabled={saving || selected === shown.modelId && shown.source === "setting"} onClick={() => void apply({ model: selected })}>
              {saving ? "Saving…" : "Save Tab model"}
            </Button>
            <Button disabled={saving} onClick={() => void apply({ useConfiguration: true })} title="Forget the saved choice: KEYGATE_TAB_MODEL decides">
              Use the configuration's
            </Button>
          </div>
        )}
        {!admin && <p className="text-sm text-slate-500">Your Keygate administrators choose the Tab model.</p>}
        {admin && chosenModel && <ModelTest modelId={chosenModel.id} />}
      </div>
    </Card>
  );
}
