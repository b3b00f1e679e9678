import { useState } from "react";
import { aliases as api, models as modelsApi } from "../api";
import { TargetStrategy, type Alias, type AliasTarget, type AliasTargetStatus } from "../gen/control/v1/alias_pb";
import { type Model } from "../gen/control/v1/model_pb";
import { Badge, Button, Card, ErrorBox, Field, inputClass, Note, Page, Spinner, useLoad } from "../components/ui";
import { useAdmin } from "../me";
import { HealthBadge, LastError } from "./Health";
import { ModelMappingsCard } from "./ModelMappings";

// AliasForm creates an alias or edits one: its name, strategy, first-token
// timeout and which models it routes to (in the order of the alias; the
// card reorders them).
function AliasForm({ alias, models, onDone, onCancel }: { alias?: Alias; models: Model[]; onDone: () => void; onCancel: () => void }) {
  const s = alias?.settings;
  const [name, setName] = useState(s?.displayName ?? "");
  const [strategy, setStrategy] = useState(s?.strategy ?? TargetStrategy.ORDERED);
  const [timeout, setTimeout_] = useState(Number(s?.firstTokenTimeoutMs ?? 0n) / 1000);
  const [targets, setTargets] = useState<AliasTarget[]>(s?.targets ?? []);
  const [error, setError] = useState<unknown>();
  const toggle = (id: string, on: boolean) =>
    setTargets(on ? [...targets, { modelId: id, weight: 1, drained: false } as AliasTarget] : targets.filter((t) => t.modelId !== id));
  const save = async () => {
    setError(undefined);
    const settings = { displayName: name, strategy, firstTokenTimeoutMs: BigInt(Math.round(timeout * 1000)), targets, groupName: s?.groupName ?? "", tooltip: s?.tooltip ?? "" };
    try {
      if (alias) await api.updateAlias({ id: alias.id, settings });
      else await api.createAlias({ settings, enabled: true });
      onDone();
    } catch (e) { setError(e); }
  };
  return (
    <Card title={alias ? `Edit ${s?.displayName}` : "Add an alias"}>
      <form className="grid grid-cols-3 gap-4" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <Field label="Name in Cursor"><input aria-label="Alias name" className={inputClass} value={name} onChange={(e) => setName(e.target.value)} /></Field>
        <Field label="Routing">
          <select aria-label="Routing" className={inputClass} value={strategy} onChange={(e) => setStrategy(Number(e.target.value))}>
            <option value={TargetStrategy.ORDERED}>In order: the first healthy target serves</option>
            <option value={TargetStrategy.WEIGHTED}>By weight: new conversations spread</option>
          </select>
        </Field>
        <Field label="First-token timeout (seconds, 0 = none)" hint="No output by then moves the call to the next target.">
          <input aria-label="First-token timeout" className={inputClass} type="number" min={0} step="any" value={timeout} onChange={(e) => setTimeout_(Number(e.target.value || 0))} />
        </Field>
        <fieldset className="col-span-3">
          <legend className="mb-1 text-sm font-medium text-slate-700">Targets</legend>
          <div className="flex flex-wrap gap-3">
            {models.map((m) => (
              <label key={m.id} className="flex items-center gap-1 text-sm">
                <input type="checkbox" checked={targets.some((t) => t.modelId === m.id)} onChange={(e) => toggle(m.id, e.target.checked)} />
                {m.settings?.displayName} <span className="text-xs text-slate-500">({m.providerName || m.settings?.baseUrl})</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="col-span-3"><ErrorBox error={error} /></div>
        <div className="col-span-3 flex gap-2">
          <Button kind="primary" type="submit">Save alias</Button>
          <Button onClick={onCancel}>Cancel</Button>
        </div>
      </form>
    </Card>
  );
}

// Targets lists an alias's targets in order with their health. An
// administrator reorders them by dragging a row (or with the arrows) and
// drains or restores each.
function Targets({ alias, act }: { alias: Alias; act: (f: () => Promise<unknown>) => void }) {
  const admin = useAdmin();
  const [dragged, setDragged] = useState<number>();
  const reorder = (from: number, to: number) => {
    if (from === to || !alias.settings) return;
    const targets = [...alias.settings.targets];
    const [t] = targets.splice(from, 1);
    targets.splice(to, 0, t);
    act(() => api.updateAlias({ id: alias.id, settings: { ...alias.settings!, targets } }));
  };
  return (
    <ol className="divide-y divide-slate-100">
      {alias.targets.map((t: AliasTargetStatus, i) => (
        <li key={t.target?.modelId} data-testid="target-row" draggable={admin}
          onDragStart={() => setDragged(i)} onDragOver={(e) => e.preventDefault()}
          onDrop={() => { if (dragged !== undefined) reorder(dragged, i); setDragged(undefined); }}
          className={`flex flex-wrap items-center gap-3 py-2 ${admin ? "cursor-move" : ""}`}>
          <span className="w-5 text-xs text-slate-400">{i + 1}.</span>
          <span className="font-medium">{t.displayName || t.target?.modelId}</span>
          <span className="text-xs text-slate-500">{t.providerName}</span>
          {alias.settings?.strategy === TargetStrategy.WEIGHTED && <span className="text-xs text-slate-500">weight {t.target?.weight}</span>}
          <HealthBadge health={t.health} outLabel="drained" />
          <LastError health={t.health} />
          <div className="flex-1" />
          {admin && (
            <>
              <Button title="Move up" disabled={i === 0} onClick={() => reorder(i, i - 1)}>↑</Button>
              <Button title="Move down" disabled={i === alias.targets.length - 1} onClick={() => reorder(i, i + 1)}>↓</Button>
              <Button onClick={() => act(() => api.drainAliasTarget({ id: alias.id, modelId: t.target!.modelId, drained: !t.target?.drained }))}>
                {t.target?.drained ? "Undrain" : "Drain"}
              </Button>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

// AliasesPage lists the aliases Cursor's picker shows beside the models.
// Members see them read-only.
export function AliasesPage() {
  const admin = useAdmin();
  const { data, error, loading, reload } = useLoad(() => api.listAliases({}), []);
  const models = useLoad(() => modelsApi.listModels({}), []).data?.models ?? [];
  const [editing, setEditing] = useState<Alias | "new">();
  const [actionError, setActionError] = useState<unknown>();
  const act = (f: () => Promise<unknown>) => {
    f().then(() => { setActionError(undefined); reload(); }, setActionError);
  };
  return (
    <Page title="Aliases" actions={admin && <Button kind="primary" disabled={!models.length} onClick={() => setEditing("new")}>Add alias</Button>}>
      <Note>An alias routes each call over its targets: before the first token it moves on a 429, a 5xx, a failed connection or a missing first token; a conversation stays on the target that served it while that target is healthy, where its prompt cache is warm.</Note>
      <ErrorBox error={error ?? actionError} />
      {editing && <AliasForm alias={editing === "new" ? undefined : editing} models={models} onCancel={() => setEditing(undefined)}
        onDone={() => { setEditing(undefined); reload(); }} />}
      {loading && !data && <Spinner label="Loading aliases…" />}
      {data && data.aliases.length === 0 && !editing && <Card><p className="text-sm text-slate-600">No aliases yet.</p></Card>}
      {data?.aliases.map((a) => (
        <Card key={a.id} title={<span data-testid="alias-name">{a.settings?.displayName}</span>}>
          <div data-testid="alias-card" className="space-y-2">
            <div className="flex flex-wrap items-center gap-3 text-xs text-slate-500">
              <span>{a.settings?.strategy === TargetStrategy.WEIGHTED ? "by weight" : "in order"}</span>
              {a.settings && a.settings.firstTokenTimeoutMs > 0n && <span>first token within {Number(a.settings.firstTokenTimeoutMs) / 1000} s</span>}
              <span>id {a.id}</span>
              <div className="flex-1" />
              {admin ? (
                <>
                  <label className="flex items-center gap-1 text-sm text-slate-700">
                    <input type="checkbox" checked={a.enabled} onChange={(e) => act(() => api.setAliasEnabled({ id: a.id, enabled: e.target.checked }))} />
                    In Cursor
                  </label>
                  <Button onClick={() => setEditing(a)}>Edit alias</Button>
                  <Button kind="danger" onClick={() => confirm(`Delete ${a.settings?.displayName}?`) && act(() => api.deleteAlias({ id: a.id }))}>Delete alias</Button>
                </>
              ) : a.enabled ? <Badge tone="green">in Cursor</Badge> : <Badge>not in Cursor</Badge>}
            </div>
            <Targets alias={a} act={act} />
          </div>
        </Card>
      ))}
      <ModelMappingsCard admin={admin} targets={[
        ...models.map((m) => ({ id: m.id, name: m.settings?.displayName ?? m.id })),
        ...(data?.aliases ?? []).map((a) => ({ id: a.id, name: a.settings?.displayName ?? a.id })),
      ]} />
    </Page>
  );
}
