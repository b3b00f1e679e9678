import { useState } from "react";
import { aliases as aliasApi, models as modelApi, settings as api } from "../api";
import { Feature, type FeatureModel } from "../gen/control/v1/setting_pb";
import type { Model } from "../gen/control/v1/model_pb";
import type { Alias } from "../gen/control/v1/alias_pb";
import { Button, Card, ErrorBox, Field, inputClass, Spinner, useLoad } from "../components/ui";
import { ModelTest } from "./ModelTest";

// OFF is the select's value that turns a feature with a default off.
const OFF = "-off-";

// words are how the console names each feature and its setting.
const words: Record<Feature, { title: string; name: string; label: string; runsOn: string; env: string; hint: string; testId: string }> = {
  [Feature.UNSPECIFIED]: { title: "", name: "", label: "", runsOn: "", env: "", hint: "", testId: "" },
  [Feature.TAB]: {
    title: "Cursor Tab", name: "Tab", label: "Tab model", runsOn: "Cursor Tab runs on", env: "KEYGATE_TAB_MODEL", testId: "tab-source",
    hint: "A fill-in-the-middle model (OpenAI Completions with suffix, Mistral FIM) or a fast chat model. Tab asks it on nearly every pause in typing.",
  },
  [Feature.CMDK]: {
    title: "Inline edits (Cmd-K)", name: "inline edits", label: "Inline-edit model", runsOn: "Inline edits run on", env: "KEYGATE_CMDK_MODEL", testId: "cmdk-source",
    hint: "A chat model that follows instructions closely. Each Cmd-K in the editor or the terminal is one call with the selection and the lines around it.",
  },
  [Feature.COMMIT]: {
    title: "Commit messages and branch names", name: "commit messages", label: "Commit model", runsOn: "Commit messages and branch names are written by",
    env: "KEYGATE_COMMIT_MODEL", testId: "commit-source",
    hint: "Any chat model. Each message is one call with the staged diff and the repository's recent messages.",
  },
};

// sourceText says where the model in force for a feature comes from.
function sourceText(f: FeatureModel): string {
  const w = words[f.feature];
  if (!f.modelId) {
    if (f.problem) return `Keygate serves no ${w.name}: ${f.problem}. Cursor's own ${w.name} is used.`;
    if (f.source === "setting") return `${w.name[0].toUpperCase()}${w.name.slice(1)} turned off here: Cursor's own ${w.name} is used.`;
    if (f.default) return `No ${w.label.toLowerCase()} chosen: ${f.default} serves ${w.name}.`;
    return `No ${w.label} chosen: Cursor's own ${w.name} is used.`;
  }
  const from = f.source === "configuration" ? `from ${w.env}` : "saved here";
  return `${w.runsOn} ${f.displayName || f.modelId} (${from}).`;
}

// FeatureModelCards choose the model or alias of each feature served apart
// from the Agent's picker: Tab, inline edits, commit messages. Only an
// administrator may change them; the control API refuses SetFeatureModel
// to members, who see the choices read-only.
export function FeatureModelCards({ admin }: { admin: boolean }) {
  const current = useLoad(() => api.getFeatureModels({}), []);
  const models = useLoad(() => modelApi.listModels({}), []);
  const aliases = useLoad(() => aliasApi.listAliases({}), []);
  if (!current.data) {
    return (
      <Card title="Feature models">
        <ErrorBox error={current.error} />
        {current.loading && <Spinner label="Loading the feature models…" />}
      </Card>
    );
  }
  return (
    <>
      {current.data.featureModels.map((f) => (
        <FeatureModelCard key={f.feature} admin={admin} initial={f} models={models.data?.models ?? []} aliases={aliases.data?.aliases ?? []}
          listError={models.error ?? aliases.error} />
      ))}
    </>
  );
}

function FeatureModelCard({ admin, initial, models, aliases, listError }: {
  admin: boolean; initial: FeatureModel; models: Model[]; aliases: Alias[]; listError: unknown;
}) {
  const w = words[initial.feature];
  const [choice, setChoice] = useState<string>();
  const [saved, setSaved] = useState<FeatureModel>();
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const shown = saved ?? initial;
  // With a default, "" is the default (the saved choice forgotten) and
  // OFF turns the feature off; without one, "" turns it off.
  const hasDefault = initial.default !== "";
  const current = shown.modelId || (hasDefault && shown.source === "setting" ? OFF : "");
  const selected = choice ?? current;
  const options = [
    ...models.filter((m) => m.enabled).map((m) => ({ id: m.id, name: m.settings?.displayName || m.id, alias: false })),
    ...aliases.filter((a) => a.enabled).map((a) => ({ id: a.id, name: a.settings?.displayName || a.id, alias: true })),
  ];
  const chosenModel = options.find((o) => o.id === selected && !o.alias);

  const apply = async (req: { model?: string; useConfiguration?: boolean }) => {
    setSaving(true);
    try {
      const res = await api.setFeatureModel({ feature: initial.feature, ...req });
      setSaved(res.featureModel); setChoice(undefined); setError(undefined);
    } catch (e) { setError(e); } finally { setSaving(false); }
  };

  return (
    <Card title={w.title}>
      <div className="space-y-3">
        <p className="text-sm text-slate-700" data-testid={w.testId}>{sourceText(shown)}</p>
        <ErrorBox error={error ?? listError} />
        <Field label={w.label} hint={w.hint}>
          <select className={inputClass} value={selected} disabled={!admin} onChange={(e) => setChoice(e.target.value)}>
            {hasDefault && <option value="">Default: {initial.default}</option>}
            <option value={hasDefault ? OFF : ""}>None: use Cursor's own {w.name}</option>
            {options.map((o) => <option key={o.id} value={o.id}>{o.name}{o.alias ? " (alias)" : ""}</option>)}
          </select>
        </Field>
        {admin && (
          <div className="flex gap-2">
            <Button kind="primary" disabled={saving || selected === current && (shown.source === "setting" || hasDefault && selected === "")}
              onClick={() => void apply(hasDefault && selected === "" ? { useConfiguration: true } : { model: selected === OFF ? "" : selected })}>
              {saving ? "Saving…" : `Save ${w.label}`}
            </Button>
            <Button disabled={saving} onClick={() => void apply({ useConfiguration: true })} title={`Forget the saved choice: ${w.env}${initial.default ? " or the default" : ""} decides`}>
              Use the configuration's
            </Button>
          </div>
        )}
        {!admin && <p className="text-sm text-slate-500">Your Keygate administrators choose the {w.label.toLowerCase()}.</p>}
        {admin && chosenModel && <ModelTest modelId={chosenModel.id} />}
      </div>
    </Card>
  );
}
