import { useState } from "react";
import { conversations as api } from "../api";
import type { Checkpoint } from "../gen/control/v1/conversation_pb";
import { Badge, Card, ErrorBox, Page, Spinner, useLoad } from "../components/ui";
import { Link } from "../App";
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
  const current = selected ?? data?.headCheckpointId;
  return (
    <div className="grid grid-cols-3 gap-4">
      <Card title="Branches" className="col-span-1">
        <ErrorBox error={error} />
        {loading && <Spinner label="Loading the branch tree…" />}
        {data && <Tree nodes={data.checkpoints} head={data.headCheckpointId} selected={current} onSelect={setSelected} />}
        <Link className="mt-3 block text-xs text-indigo-700 underline" to={`/calls?conversation=${encodeURIComponent(conversationId)}`}>Calls of this conversation</Link>
      </Card>
      <Card title="Messages" className="col-span-2">{current && <Messages checkpointId={current} />}</Card>
    </div>
  );
}

export function ConversationsPage({ conversationId }: { conversationId?: string }) {
  const { data, error, loading } = useLoad(() => api.listConversations({ pageSize: 100 }), []);
  return (
    <Page title={conversationId ? `Conversation ${conversationId}` : "Conversations"}>
      <ErrorBox error={error} />
      {conversationId ? <Detail conversationId={conversationId} /> : (
        <Card>
          {loading && <Spinner label="Loading conversations…" />}
          <ul className="divide-y divide-slate-100">
            {data?.conversations.map((c) => (
              <li key={c.id} className="py-2 text-sm">
                <Link className="font-mono text-indigo-700 underline" to={`/conversations/${encodeURIComponent(c.id)}`}>{c.id}</Link>
                <span className="ml-3 text-xs text-slate-500">updated {time(c.updateTime)}</span>
              </li>
            ))}
          </ul>
          {data && data.conversations.length === 0 && <p className="text-sm text-slate-500">No conversations yet: they appear once Cursor runs its first agent turn through Keygate.</p>}
        </Card>
      )}
    </Page>
  );
}
