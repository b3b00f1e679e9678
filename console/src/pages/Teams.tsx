import { useState } from "react";
import { aliases, models, teams } from "../api";
import { useAdmin } from "../me";
import type { Team } from "../gen/control/v1/team_pb";
import { Badge, Button, Card, ErrorBox, Field, inputClass, Page, Spinner, useLoad } from "../components/ui";

// TeamsPage shows teams: identity-provider groups an administrator marks as
// teams, each with an optional allow-list of models and aliases. Every user
// sees their own teams and picks the one their use is charged to; an
// administrator also sees every team with its members, marks groups and
// edits allow-lists.
export function TeamsPage() {
  const admin = useAdmin();
  return (
    <Page title="Teams">
      <div className="space-y-6">
        <MyTeams />
        {admin && <AllTeams />}
      </div>
    </Page>
  );
}

function MyTeams() {
  const { data, error, loading, reload } = useLoad(() => teams.getMyTeams({}), []);
  const [actionError, setActionError] = useState<unknown>();
  const choose = async (name: string) => {
    try { await teams.chooseTeam({ name }); setActionError(undefined); reload(); } catch (e) { setActionError(e); }
  };
  return (
    <Card title="My teams">
      <div className="space-y-3">
        <ErrorBox error={error ?? actionError} />
        {loading && !data && <Spinner label="Loading your teams…" />}
        {data && data.teams.length === 0 && <p className="text-sm text-slate-500">You are in no team: every model is open to you, and your use is charged to no team.</p>}
        {data && data.teams.length > 0 && (
          <>
            <Field label="Charge my use to" hint="Your spend and budgets count against this team. Without a choice, your first team.">
              <select className={inputClass} aria-label="Charge my use to" value={data.choice && data.teams.some((t) => t.name === data.choice) ? data.choice : ""}
                onChange={(e) => void choose(e.target.value)}>
                <option value="">My first team ({data.teams[0]?.name})</option>
                {data.teams.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}
              </select>
            </Field>
            <ul className="space-y-1 text-sm" data-testid="my-teams">
              {data.teams.map((t) => (
                <li key={t.name} className="flex items-center gap-2">
                  <span className="font-medium">{t.name}</span>
                  {t.name === data.charged && <Badge tone="indigo">charged</Badge>}
                  <span className="text-slate-500">{t.restricted ? `models: ${t.models.join(", ") || "none"}` : "every model"}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </Card>
  );
}

function AllTeams() {
  const { data, error, loading, reload } = useLoad(() => teams.listTeams({}), []);
  const options = useLoad(async () => {
    const [m, a] = await Promise.all([models.listModels({}), aliases.listAliases({})]);
    return [
      ...a.aliases.map((x) => ({ id: x.id, name: x.settings?.displayName || x.id, alias: true })),
      ...m.models.map((x) => ({ id: x.id, name: x.settings?.displayName || x.id, alias: false })),
    ];
  }, []);
  const [editing, setEditing] = useState<{ name: string; restricted: boolean; models: string[]; isNew: boolean }>();
  const [actionError, setActionError] = useState<unknown>();

  const save = async () => {
    if (!editing) return;
    try {
      await teams.putTeam({ name: editing.name.trim(), restricted: editing.restricted, models: editing.models });
      setEditing(undefined); setActionError(undefined); reload();
    } catch (e) { setActionError(e); }
  };
  const remove = async (t: Team) => {
    if (!window.confirm(`Stop treating the group “${t.name}” as a team? Its allow-list goes; the group stays in your identity provider.`)) return;
    try { await teams.deleteTeam({ name: t.name }); setActionError(undefined); reload(); } catch (e) { setActionError(e); }
  };
  const nameOf = (id: string) => options.data?.find((o) => o.id === id)?.name ?? id;

  return (
    <Card title="All teams">
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          A team is a group of your identity provider (OIDC groups claim, trusted group header, SCIM) that you mark here; other groups are
          ignored. Members are the users whose groups name it. A team without a model list may use every model; a user in no team may too.
        </p>
        <ErrorBox error={error ?? actionError} />
        {loading && !data && <Spinner label="Loading teams…" />}
        {data && data.teams.length === 0 && <p className="text-sm text-slate-500">No teams yet.</p>}
        {data && data.teams.length > 0 && (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500"><th className="py-1">Team</th><th>Models</th><th>Members</th><th /></tr>
            </thead>
            <tbody>
              {data.teams.map((t) => (
                <tr key={t.name} data-testid="team-row" className="border-b border-slate-100 align-top last:border-0">
                  <td className="py-2 font-medium">{t.name}</td>
                  <td className="py-2">{t.restricted ? (t.models.map(nameOf).join(", ") || "none") : "every model"}</td>
                  <td className="py-2">
                    {t.members.length === 0 ? <span className="text-slate-500">nobody seen yet</span> : t.members.map((m) => (
                      <div key={m.userId}>{m.userId}{m.charged ? "" : <span className="text-slate-500"> (charged elsewhere)</span>}</div>
                    ))}
                  </td>
                  <td className="space-x-2 py-2 text-right whitespace-nowrap">
                    <Button onClick={() => setEditing({ name: t.name, restricted: t.restricted, models: [...t.models], isNew: false })}>Edit</Button>
                    <Button kind="danger" onClick={() => void remove(t)}>Delete</Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {data && data.otherGroups.length > 0 && !editing && (
          <p className="text-sm text-slate-600">
            Groups seen that are not teams:{" "}
            {data.otherGroups.map((g) => (
              <button key={g} type="button" className="mr-2 text-indigo-700 underline" onClick={() => setEditing({ name: g, restricted: false, models: [], isNew: true })}>{g}</button>
            ))}
          </p>
        )}
        {!editing && <Button onClick={() => setEditing({ name: "", restricted: false, models: [], isNew: true })}>Mark a group as a team</Button>}
        {editing && (
          <div className="space-y-3 rounded-md border border-slate-200 p-3" data-testid="team-form">
            <Field label="Group name" hint="Exactly as your identity provider sends it.">
              <input className={inputClass} aria-label="Group name" value={editing.name} disabled={!editing.isNew}
                onChange={(e) => setEditing({ ...editing, name: e.target.value })} />
            </Field>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={editing.restricted} onChange={(e) => setEditing({ ...editing, restricted: e.target.checked })} />
              Only the models below
            </label>
            {editing.restricted && (
              <div className="grid grid-cols-2 gap-1 text-sm">
                {(options.data ?? []).map((o) => (
                  <label key={o.id} className="flex items-center gap-2">
                    <input type="checkbox" aria-label={o.name} checked={editing.models.includes(o.id)}
                      onChange={(e) => setEditing({ ...editing, models: e.target.checked ? [...editing.models, o.id] : editing.models.filter((m) => m !== o.id) })} />
                    {o.name}{o.alias && <Badge>alias</Badge>}
                  </label>
                ))}
              </div>
            )}
            <div className="space-x-2">
              <Button kind="primary" onClick={() => void save()} disabled={!editing.name.trim()}>Save team</Button>
              <Button onClick={() => setEditing(undefined)}>Cancel</Button>
            </div>
          </div>
        )}
      </div>
    </Card>
  );
}
