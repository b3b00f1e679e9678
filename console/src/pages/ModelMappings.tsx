import { useState } from "react";
import { mappings as api } from "../api";
import { Button, Card, ErrorBox, Field, inputClass, Spinner, useLoad } from "../components/ui";
import { time } from "../format";

// ModelMappingsCard maps model ids of Cursor's own (the ids the client
// sends for its built-in models, subagents and "auto") onto Keygate models
// or aliases: a turn the client pins to a mapped id runs on Keygate, and
// Cursor's picker entry for it is marked with the Keygate model. Unmapped
// ids go to Cursor. Members see the mappings read-only.
export function ModelMappingsCard({ admin, targets }: { admin: boolean; targets: { id: string; name: string }[] }) {
  const { data, error, loading, reload } = useLoad(() => api.listModelMappings({}).then((r) => r.mappings), []);
  const [cursorModel, setCursorModel] = useState("");
  const [target, setTarget] = useState("");
  const [actionError, setActionError] = useState<unknown>();
  const name = (id: string) => targets.find((t) => t.id === id)?.name ?? id;
  const act = (f: () => Promise<unknown>) => { f().then(() => { setActionError(undefined); reload(); }, setActionError); };

  return (
    <Card title="Cursor's models on Keygate">
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          Cursor sends ids of its own models for subagents, “auto” and its defaults (for example <code>default</code>, <code>auto</code>,
          <code> composer-1</code>, <code>gpt-5</code>). Map one onto a Keygate model or alias and those turns run on Keygate; an unmapped id
          goes to Cursor.
        </p>
        <ErrorBox error={error ?? actionError} />
        {admin && (
          <form className="flex items-end gap-3" onSubmit={(e) => { e.preventDefault(); act(() => api.setModelMapping({ cursorModel: cursorModel.trim(), target }).then(() => setCursorModel(""))); }}>
            <div className="flex-1">
              <Field label="Cursor's model id"><input aria-label="Cursor's model id" className={inputClass} value={cursorModel} onChange={(e) => setCursorModel(e.target.value)} placeholder="gpt-5" /></Field>
            </div>
            <div className="flex-1">
              <Field label="Runs on">
                <select aria-label="Runs on" className={inputClass} value={target} onChange={(e) => setTarget(e.target.value)}>
                  <option value="">Choose a model or alias…</option>
                  {targets.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
                </select>
              </Field>
            </div>
            <div className="pb-5"><Button kind="primary" type="submit" disabled={!cursorModel.trim() || !target}>Map</Button></div>
          </form>
        )}
        {loading && !data && <Spinner label="Loading mappings…" />}
        {data && data.length === 0 && <p className="text-sm text-slate-500">No Cursor model is mapped: Cursor's own models run on Cursor.</p>}
        {data && data.length > 0 && (
          <table className="w-full text-sm">
            <thead><tr className="border-b border-slate-200 text-left text-slate-500"><th className="py-1">Cursor's model id</th><th>Runs on</th><th>Changed</th><th /></tr></thead>
            <tbody>
              {data.map((m) => (
                <tr key={m.cursorModel} data-testid="mapping-row" className="border-b border-slate-100 last:border-0">
                  <td className="py-2"><code>{m.cursorModel}</code></td>
                  <td>{name(m.target)}</td>
                  <td>{time(m.updateTime)}</td>
                  <td className="text-right">{admin && <Button kind="danger" onClick={() => act(() => api.deleteModelMapping({ cursorModel: m.cursorModel }))}>Unmap</Button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Card>
  );
}
