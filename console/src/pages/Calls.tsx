import { useState } from "react";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { calls as api } from "../api";
import { CallKind, CallStatus, type Call, type ListCallsResponse } from "../gen/control/v1/call_pb";
import { Badge, Button, Card, ErrorBox, inputClass, Link, Note, Page, Spinner, useLoad } from "../components/ui";
import { useAdmin } from "../me";
import { navigate, useQueryParam } from "../router";
import { ms, time, tokens } from "../format";

export function StatusBadge({ status }: { status: CallStatus }) {
  switch (status) {
    case CallStatus.COMPLETED: return <Badge tone="green">completed</Badge>;
    case CallStatus.ERROR: return <Badge tone="red">error</Badge>;
    case CallStatus.CANCELLED: return <Badge tone="amber">cancelled</Badge>;
    case CallStatus.RUNNING: return <Badge tone="indigo">running</Badge>;
    default: return <Badge>unknown</Badge>;
  }
}

// KindBadge names the feature a call served: an Agent turn's model cycle,
// a Tab prediction, an inline edit, a commit message or branch name, a
// call of the compatible API, or a connection test.
export function KindBadge({ kind }: { kind: CallKind }) {
  switch (kind) {
    case CallKind.AGENT: return <Badge>agent</Badge>;
    case CallKind.TAB: return <Badge tone="indigo">tab</Badge>;
    case CallKind.CMDK: return <Badge tone="green">cmdk</Badge>;
    case CallKind.COMMIT: return <Badge tone="green">commit</Badge>;
    case CallKind.TEST: return <Badge tone="amber">test</Badge>;
    case CallKind.API: return <Badge tone="indigo">api</Badge>;
    default: return <Badge>unknown</Badge>;
  }
}

// UserId names the user whose turn made a call, "—" for a call made outside
// any user's turn; with onPick it is a button that filters by that user.
export function UserId({ id, onPick }: { id: string; onPick?: (id: string) => void }) {
  if (!id) return <span className="text-slate-400" title="made outside a user's turn">—</span>;
  if (!onPick) return <span title={id}>{id}</span>;
  return (
    <button type="button" title={`Filter by ${id}`} className="max-w-full truncate text-indigo-700 hover:underline"
      onClick={(e) => { e.stopPropagation(); onPick(id); }}>
      {id}
    </button>
  );
}

// callFilter asks for the calls of the last hours (0: all time).
function callFilter(hours: number, model: string, status: CallStatus, kind: CallKind, conversation: string, userId: string) {
  return {
    startTime: hours ? timestampFromDate(new Date(Date.now() - hours * 3600_000)) : undefined,
    modelId: model.trim(), status, kind, conversationId: conversation.trim(), userId,
  };
}

const ranges: [string, number][] = [["Last hour", 1], ["Last 24 hours", 24], ["Last 7 days", 24 * 7], ["Last 30 days", 24 * 30], ["All time", 0]];

// CallsPage lists calls: everyone's for administrators, who can filter by
// user; a member's own only (the control API scopes them), so members get
// neither the user filter nor the user column.
export function CallsPage() {
  const admin = useAdmin();
  const [hours, setHours] = useState(24 * 7);
  const [model, setModel] = useState("");
  const [status, setStatus] = useState(CallStatus.UNSPECIFIED);
  const [kind, setKind] = useState(CallKind.UNSPECIFIED);
  const [conversation, setConversation] = useQueryParam("conversation");
  const [user, setUser] = useQueryParam("user");
  const [moreError, setMoreError] = useState<unknown>();

  const userId = admin ? user.trim() : "";
  const { data, error, loading, reload } = useLoad(
    () => api.listCalls({ filter: callFilter(hours, model, status, kind, conversation, userId), pageSize: 50 }),
    [hours, model, status, kind, conversation, userId]);
  // Pages loaded with "Load more" belong to the first page they followed:
  // new filters (a new first page) drop them.
  const [extra, setExtra] = useState<{ after?: ListCallsResponse; calls: Call[]; token: string }>({ calls: [], token: "" });
  const more = extra.after === data ? extra : { calls: [], token: data?.nextPageToken ?? "" };
  const token = more.token;
  const loadMore = async () => {
    try {
      const r = await api.listCalls({ filter: callFilter(hours, model, status, kind, conversation, userId), pageSize: 50, pageToken: token });
      setExtra({ after: data, calls: [...more.calls, ...r.calls], token: r.nextPageToken });
    } catch (e) { setMoreError(e); }
  };
  const rows = [...(data?.calls ?? []), ...more.calls];

  return (
    <Page title="Calls" actions={<Button onClick={reload}>Refresh</Button>}>
      {!admin && <Note>These are your own calls only; your Keygate administrators see everyone's.</Note>}
      <Card>
        <div className={`grid gap-3 ${admin ? "grid-cols-6" : "grid-cols-5"}`}>
          <select aria-label="Time range" className={inputClass} value={hours} onChange={(e) => setHours(Number(e.target.value))}>
            {ranges.map(([l, h]) => <option key={h} value={h}>{l}</option>)}
          </select>
          <input aria-label="Model filter" className={inputClass} placeholder="Upstream model id" value={model} onChange={(e) => setModel(e.target.value)} />
          <select aria-label="Status filter" className={inputClass} value={status} onChange={(e) => setStatus(Number(e.target.value))}>
            <option value={CallStatus.UNSPECIFIED}>Any status</option>
            <option value={CallStatus.COMPLETED}>Completed</option>
            <option value={CallStatus.ERROR}>Error</option>
            <option value={CallStatus.CANCELLED}>Cancelled</option>
            <option value={CallStatus.RUNNING}>Running</option>
          </select>
          <select aria-label="Kind filter" className={inputClass} value={kind} onChange={(e) => setKind(Number(e.target.value))}>
            <option value={CallKind.UNSPECIFIED}>Any kind</option>
            <option value={CallKind.AGENT}>Agent</option>
            <option value={CallKind.TAB}>Tab</option>
            <option value={CallKind.CMDK}>Inline edit</option>
            <option value={CallKind.COMMIT}>Commit message</option>
            <option value={CallKind.TEST}>Connection test</option>
            <option value={CallKind.API}>Compatible API</option>
          </select>
          <input aria-label="Conversation filter" className={inputClass} placeholder="Conversation id" value={conversation} onChange={(e) => setConversation(e.target.value)} />
          {admin && <input aria-label="User filter" className={inputClass} placeholder="User id" value={user} onChange={(e) => setUser(e.target.value)} />}
        </div>
      </Card>
      <ErrorBox error={error ?? moreError} />
      {loading && !data && <Spinner label="Loading calls…" />}
      <Card>
        <table className="w-full text-sm">
          <thead>
            <tr className="border-b border-slate-200 text-left text-slate-500">
              <th className="py-2">Started</th>{admin && <th>User</th>}<th>Kind</th><th>Model</th><th>Status</th><th>TTFT</th><th>Duration</th>
              <th>Input</th><th>Cached</th><th>Output</th><th>Conversation</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.callId} data-testid="call-row" className="cursor-pointer border-b border-slate-100 hover:bg-indigo-50"
                onClick={() => navigate(`/calls/${encodeURIComponent(c.callId)}`)}>
                <td className="py-2">{time(c.timing?.requestStartTime)}</td>
                {admin && <td className="max-w-32 truncate" data-testid="call-user"><UserId id={c.userId} onPick={setUser} /></td>}
                <td className="whitespace-nowrap"><span data-testid="call-kind"><KindBadge kind={c.kind} /></span>
                  {c.client && <span className="ml-1 text-xs text-slate-500" data-testid="call-client">{c.client}</span>}</td>
                <td>{c.model?.modelId}</td>
                <td><StatusBadge status={c.status} /></td>
                <td>{ms(c.timing?.ttftMs)}</td>
                <td>{ms(c.timing?.durationMs)}</td>
                <td>{tokens(c.usage?.inputTokens)}</td>
                <td>{tokens(c.usage?.cacheReadTokens)}</td>
                <td>{tokens(c.usage?.outputTokens)}</td>
                <td className="max-w-40 truncate text-xs text-slate-500">
                  {c.conversationId && <Link to={`/conversations/${encodeURIComponent(c.conversationId)}`}>{c.conversationId}</Link>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {data && rows.length === 0 && <p className="py-4 text-sm text-slate-500">No calls match. Widen the time range or clear the filters.</p>}
        {token && <div className="mt-3"><Button onClick={() => void loadMore()}>Load more</Button></div>}
      </Card>
    </Page>
  );
}
