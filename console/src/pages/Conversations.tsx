import { useState } from "react";
import { conversations as api } from "../api";
import type { Checkpoint } from "../gen/control/v1/conversation_pb";
import { Badge, Button, Card, ErrorBox, inputClass, Link, Page, Spinner, useLoad } from "../components/ui";
import { navigate, useQueryParam } from "../router";
import { time } from "../format";

// Tree renders checkpoints by parent link; a node with several children is
// where the conversation branched (an edit or a retry from that point).
function Tree({ nodes, head, selected, onSelect }: { nodes: Checkpoint[]; head: string; selected?: string; onSelect: (id: string) => void }) {
  const children = new Map<string, Checkpoint[]>();
  nodes.forEach((n) => children.set(n.parentId, [...(children.get(n.parentId) ?? []), n]));
  const render = (n: Checkpoint, depth: number): React.ReactNode => {
    const kids = children.get(n.id) ?? [];
    return (
      <li key={n.id}>
        <button onClick={() => onSelect(n.id)} style={{ paddingLeft: depth * 16 }}
          className={`flex w-full items-center gap-2 rounded px-2 py-1 text-left text-xs hover:bg-slate-100 ${selected === n.id ? "bg-indigo-50" : ""}`}>
          <span className="font-mono">{n.id.slice(0, 12)}</span>
          <span className="text-slate-500">{Number(n.length)} msgs</span>
          {n.id === head && <Badge tone="green">head</Badge>}
          {kids.length > 1 && <Badge tone="amber">{kids.length} branches</Badge>}
        </button>
        {kids.length > 0 && <ul>{kids.map((k) => render(k, kids.length > 1 ? depth + 1 : depth))}</ul>}
      </li>
    );
  };
  return <ul data-testid="branch-tree">{(children.get("") ?? []).map((r) => render(r, 0))}</ul>;
}

function Messages({ checkpointId }: { checkpointId: string }) {
  const { data, error, loading } = useLoad(() => api.getCheckpointMessages({ checkpointId }), [checkpointId]);
  return (
    <div className="space-y-2">
      <ErrorBox error={error} />
      {loading && <Spinner label="Loading messages…" />}
      {data?.messages.map((m) => (
        <div key={m.id} className="rounded border border-slate-200 p-2 text-sm">
          <div className="mb-1 flex gap-2 text-xs text-slate-500"><Badge>{m.role}</Badge><span className="font-mono">{m.id}</span></div>
          <pre className="max-h-64 overflow-auto whitespace-pre-wrap font-sans">{m.text}</pre>
        </div>
      ))}
      {data && data.messages.length === 0 && <p className="text-sm text-slate-500">The root checkpoint holds no messages.</p>}
    </div>
  );
}

function Detail({ conversationId }: { conversationId: string }) {
  const { data, error, loading } = useLoad(() => api.getBranchTree({ conversationId }), [conversationId]);
  const [selected, setSelected] = useState<string>();
  const [deleteError, setDeleteError] = useState<unknown>();
  const current = selected ?? data?.headCheckpointId;
  // Erasing is what retention does: messages, images, call details and
  // kept prompts go; call records stay, without content, for spend.
  const erase = async () => {
    if (!window.confirm("Delete this conversation? Its messages, images, request bodies and kept prompts are erased for good; its call records stay, without content, for spend and audit.")) return;
    try { await api.deleteConversation({ conversationId }); navigate("/conversations"); } catch (e) { setDeleteError(e); }
  };
  return (
    <div className="grid grid-cols-3 gap-4">
      <Card title="Branches" className="col-span-1">
        <ErrorBox error={error} />
        <ErrorBox error={deleteError} />
        {loading && <Spinner label="Loading the branch tree…" />}
        {data && <Tree nodes={data.checkpoints} head={data.headCheckpointId} selected={current} onSelect={setSelected} />}
        <Link className="mt-3 block text-xs text-indigo-700 underline" to={`/calls?conversation=${encodeURIComponent(conversationId)}`}>Calls of this conversation</Link>
        <div className="mt-3"><Button kind="danger" onClick={() => void erase()}>Delete conversation</Button></div>
      </Card>
      <Card title="Messages" className="col-span-2">{current && <Messages checkpointId={current} />}</Card>
    </div>
  );
}

// ConversationsPage lists conversations with their title (the first user
// message), user, model, turns and last activity, newest first, with a
// search kept in the page's query string; or one conversation's branches.
export function ConversationsPage({ conversationId }: { conversationId?: string }) {
  const [query, setQuery] = useQueryParam("q");
  const search = query.trim();
  const { data, error, loading } = useLoad(() => (conversationId ? Promise.resolve(undefined) : api.listConversations({ pageSize: 100, search })), [search, conversationId]);
  const [more, setMore] = useState<{ token: string; rows: NonNullable<typeof data>["conversations"] }>();
  const rows = [...(data?.conversations ?? []), ...(more?.rows ?? [])];
  const next = more ? more.token : data?.nextPageToken;
  const loadMore = async () => {
    const r = await api.listConversations({ pageSize: 100, search, pageToken: next });
    setMore({ token: r.nextPageToken, rows: [...(more?.rows ?? []), ...r.conversations] });
  };
  return (
    <Page title={conversationId ? `Conversation ${conversationId}` : "Conversations"}
      actions={!conversationId && <input aria-label="Search conversations" className={`${inputClass} w-72`} placeholder="Search title, user, model or id"
        value={query} onChange={(e) => { setMore(undefined); setQuery(e.target.value); }} />}>
      <ErrorBox error={error} />
      {conversationId ? <Detail conversationId={conversationId} /> : (
        <Card className="overflow-x-auto">
          {loading && <Spinner label="Loading conversations…" />}
          <table className="w-full text-sm">
            <thead><tr className="text-left text-slate-500"><th>Title</th><th>User</th><th>Model</th><th>Turns</th><th>Last activity</th></tr></thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id} data-testid="conversation-row" className="border-t border-slate-100 align-top">
                  <td className="max-w-md py-1.5">
                    <Link className="text-indigo-700 underline" to={`/conversations/${encodeURIComponent(c.id)}`}>{c.title || c.id}</Link>
                    {c.title && <div className="font-mono text-xs text-slate-400">{c.id}</div>}
                  </td>
                  <td data-testid="conversation-user">{c.userId || "–"}</td>
                  <td title={c.modelId}>{c.modelName || "–"}</td>
                  <td>{c.turns}</td>
                  <td className="text-xs text-slate-500">{time(c.updateTime)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data && rows.length === 0 && <p className="py-2 text-sm text-slate-500">{search ? "No conversations match." : "No conversations yet: they appear once Cursor runs its first agent turn through Keygate."}</p>}
          {next && <button className="mt-2 text-sm text-indigo-700 underline" onClick={() => void loadMore()}>Load more</button>}
        </Card>
      )}
    </Page>
  );
}
