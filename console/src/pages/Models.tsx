import { useState } from "react";
import { models as api } from "../api";
import { type Model, type ProviderProtocol } from "../gen/control/v1/model_pb";
import { Badge, Button, Card, ErrorBox, Note, Page, Spinner, useLoad } from "../components/ui";
import { useAdmin } from "../me";
import { ModelForm } from "./ModelForm";
import { ModelTest } from "./ModelTest";

// providerOf groups models by endpoint: models sharing protocol and base
// URL are called at the same place (one provider, or providers of the same
// account). The protocols' names come from the API, which lists every
// protocol Keygate speaks. Members see neither base URL nor provider
// name: their models are grouped by protocol.
function providerOf(m: Model, protocols: ProviderProtocol[]) {
  const name = protocols.find((p) => p.kind === m.settings?.providerKind)?.name ?? "?";
  return [name, m.settings?.baseUrl].filter(Boolean).join(" · ");
}

// ModelsPage lists the models by provider. Administrators manage them here;
// members see the list only, since the control API refuses them every change
// and the connection test (which spends the provider key).
export function ModelsPage() {
  const admin = useAdmin();
  const { data, error, loading, reload } = useLoad(() => api.listModels({}), []);
  const [editing, setEditing] = useState<Model | "new">();
  const [actionError, setActionError] = useState<unknown>();
  const list = data?.models ?? [];
  const protocols = data?.protocols ?? [];

  const act = (f: () => Promise<unknown>) => {
    f().then(() => { setActionError(undefined); reload(); }, setActionError);
  };
  const move = (i: number, by: number) => {
    const ids = list.map((m) => m.id);
    const [id] = ids.splice(i, 1);
    ids.splice(i + by, 0, id);
    act(() => api.reorderModels({ ids }));
  };
  const groups = new Map<string, { model: Model; index: number }[]>();
  list.forEach((model, index) => {
    const key = providerOf(model, protocols);
    groups.set(key, [...(groups.get(key) ?? []), { model, index }]);
  });

  return (
    <Page title="Providers & Models" actions={admin && <Button kind="primary" disabled={!data} onClick={() => setEditing("new")}>Add model</Button>}>
      {!admin && <Note>Models are managed by your Keygate administrators.</Note>}
      <ErrorBox error={error ?? actionError} />
      {editing && (
        <ModelForm model={editing === "new" ? undefined : editing} protocols={protocols} onCancel={() => setEditing(undefined)}
          onDone={() => { setEditing(undefined); reload(); }} />
      )}
      {loading && !data && <Spinner label="Loading models…" />}
      {data && list.length === 0 && !editing && (
        <Card><p className="text-sm text-slate-600">{admin ? "No models yet. Add one: choose the protocol, paste the base URL and key, then discover the provider's models."
          : "No models yet. Ask one of your Keygate administrators to add one."}</p></Card>
      )}
      {[...groups].map(([provider, items]) => (
        <Card key={provider} title={provider}>
          <ul className="divide-y divide-slate-100">
            {items.map(({ model: m, index }) => (
              <li key={m.id} className="space-y-2 py-3" data-testid="model-row">
                <div className="flex flex-wrap items-center gap-3">
                  <div className="min-w-0 flex-1">
                    <div className="font-medium">{m.settings?.displayName} {m.settings?.groupName && <Badge>{m.settings.groupName}</Badge>}</div>
                    <div className="text-xs text-slate-500">
                      {m.settings?.modelId} · provider {m.providerName || "missing"} · key {m.hasApiKey ? m.apiKeyHint || "set" : "missing"} · id {m.id}
                    </div>
                  </div>
                  {admin ? (
                    <>
                      <label className="flex items-center gap-1 text-sm">
                        <input type="checkbox" checked={m.enabled} onChange={(e) => act(() => api.setModelEnabled({ id: m.id, enabled: e.target.checked }))} />
                        In Cursor
                      </label>
                      <Button title="Move up" disabled={index === 0} onClick={() => move(index, -1)}>↑</Button>
                      <Button title="Move down" disabled={index === list.length - 1} onClick={() => move(index, 1)}>↓</Button>
                      <Button onClick={() => setEditing(m)}>Edit</Button>
                      <Button onClick={() => act(() => api.duplicateModel({ id: m.id }))}>Duplicate</Button>
                      <Button kind="danger" onClick={() => confirm(`Delete ${m.settings?.displayName}?`) && act(() => api.deleteModel({ id: m.id }))}>Delete</Button>
                    </>
                  ) : m.enabled ? <Badge tone="green">in Cursor</Badge> : <Badge>not in Cursor</Badge>}
                </div>
                {admin && <ModelTest modelId={m.id} />}
              </li>
            ))}
          </ul>
        </Card>
      ))}
    </Page>
  );
}
