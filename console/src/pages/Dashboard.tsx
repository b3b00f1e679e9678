import { useState } from "react";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { dashboard as api, models as modelsApi } from "../api";
import { BucketSize, type Aggregate, type SeriesPoint, type TabAggregate, type TabDashboard } from "../gen/control/v1/dashboard_pb";
import { Card, ErrorBox, inputClass, Note, Page, Spinner, useLoad } from "../components/ui";
import { useAdmin } from "../me";
import { useQueryParam } from "../router";
import { ms, percent, tokens, usd } from "../format";
import { UserId } from "./Calls";

const ranges: [string, number][] = [["Last hour", 1], ["Last 24 hours", 24], ["Last 7 days", 24 * 7], ["Last 30 days", 24 * 30]];

const series = [
  { key: "inputTokens", label: "Fresh input", color: "#6366f1" },
  { key: "cacheReadTokens", label: "Cache read", color: "#22c55e" },
  { key: "cacheWriteTokens", label: "Cache write", color: "#f59e0b" },
  { key: "outputTokens", label: "Output", color: "#0ea5e9" },
] as const;

// TokenChart stacks the token kinds of each bucket; drawn as plain SVG so
// the console needs no chart library.
function TokenChart({ points, bucket }: { points: SeriesPoint[]; bucket: BucketSize }) {
  const totals = points.map((p) => series.reduce((s, k) => s + Number(p.aggregate?.[k.key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const w = 800, h = 200, bw = w / Math.max(points.length, 1);
  const label = (p: SeriesPoint) => {
    const d = timestampDate(p.startTime!);
    return bucket === BucketSize.DAY ? d.toLocaleDateString() : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  };
  return (
    <div>
      <svg viewBox={`0 0 ${w} ${h + 20}`} className="w-full" role="img" aria-label="Tokens over time">
        {points.map((p, i) => {
          let y = h;
          return (
            <g key={i}>
              <title>{`${label(p)}: ${tokens(totals[i])} tokens, ${Number(p.aggregate?.calls ?? 0)} calls`}</title>
              {series.map((s) => {
                const v = (Number(p.aggregate?.[s.key] ?? 0) / max) * h;
                y -= v;
                return <rect key={s.key} x={i * bw + 1} y={y} width={Math.max(bw - 2, 1)} height={v} fill={s.color} />;
              })}
              {i % Math.ceil(points.length / 8) === 0 && i * bw < w - 60 && <text x={i * bw} y={h + 14} fontSize="10" fill="#64748b">{label(p)}</text>}
            </g>
          );
        })}
      </svg>
      <div className="mt-2 flex gap-4 text-xs">
        {series.map((s) => <span key={s.key} className="flex items-center gap-1"><span className="h-2 w-2 rounded-sm" style={{ background: s.color }} />{s.label}</span>)}
      </div>
    </div>
  );
}

function Metric({ label, value, sub }: { label: string; value: string; sub?: string }) {
  return (
    <Card>
      <div className="text-xs uppercase tracking-wide text-slate-500">{label}</div>
      <div className="mt-1 text-2xl font-semibold">{value}</div>
      {sub && <div className="text-xs text-slate-500">{sub}</div>}
    </Card>
  );
}

const num = (a: Aggregate | undefined, k: "calls" | "failed" | "inputTokens" | "outputTokens") => Number(a?.[k] ?? 0);

// TabCells are one row's Tab figures: requests (retries are calls, not
// requests), the fates reported and the acceptance rate over them, the
// median wait for the first text, and the cost.
function TabCells({ a }: { a: TabAggregate | undefined }) {
  const reported = Number((a?.accepted ?? 0n) + (a?.partiallyAccepted ?? 0n) + (a?.rejected ?? 0n));
  return (
    <>
      <td>{Number(a?.requests ?? 0)}</td><td>{Number(a?.failed ?? 0)}</td>
      <td title={`${Number(a?.accepted ?? 0)} accepted · ${Number(a?.partiallyAccepted ?? 0)} partially · ${Number(a?.rejected ?? 0)} rejected`}>
        {reported ? percent(a?.acceptanceRate ?? 0) : "—"}
      </td>
      <td>{reported}</td><td>{ms(Math.round(a?.p50TtftMs ?? 0))}</td><td>{usd(a?.costUsd ?? 0)}</td>
    </>
  );
}

const tabHead = <><th>Requests</th><th>Failed</th><th>Accepted</th><th>Fates</th><th>p50 TTFT</th><th>Cost</th></>;

// TabSection shows the Cursor Tab predictions of the range apart from the
// Agent figures: per model for everyone, per user for administrators.
function TabSection({ tab, admin, onPick }: { tab: TabDashboard; admin: boolean; onPick: (id: string) => void }) {
  return (
    <div className={`grid gap-4 ${admin ? "xl:grid-cols-2" : ""}`}>
      <Card title="Tab per model" className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead><tr className="text-left text-slate-500"><th>Model</th>{tabHead}</tr></thead>
          <tbody>
            {tab.perModel.map((m) => (
              <tr key={m.modelId} data-testid="tab-model-row" className="border-t border-slate-100">
                <td className="py-1">{m.modelId}</td><TabCells a={m.aggregate} />
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
      {admin && <Card title="Tab per user" className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead><tr className="text-left text-slate-500"><th>User</th>{tabHead}</tr></thead>
          <tbody>
            {tab.perUser.map((u) => (
              <tr key={u.userId} data-testid="tab-user-row" className="border-t border-slate-100">
                <td className="max-w-48 truncate py-1"><UserId id={u.userId} onPick={onPick} /></td><TabCells a={u.aggregate} />
              </tr>
            ))}
          </tbody>
        </table>
      </Card>}
    </div>
  );
}

// DashboardPage sums calls: everyone's for administrators, with a per-user
// table and a user filter; a member's own only (the control API scopes
// them), so members get neither.
export function DashboardPage() {
  const admin = useAdmin();
  const [hours, setHours] = useState(24);
  const [user, setUser] = useQueryParam("user");
  const userId = admin ? user.trim() : "";
  const { data, error, loading } = useLoad(() => {
    const end = new Date();
    return api.getDashboard({
      startTime: timestampFromDate(new Date(end.getTime() - hours * 3600_000)), endTime: timestampFromDate(end), userId,
    });
  }, [hours, userId]);
  const t = data?.totals;
  const modelList = useLoad(() => modelsApi.listModels({}), []).data?.models ?? [];
  const names = new Map(modelList.map((m) => [m.id, `${m.settings?.displayName ?? m.id}${m.providerName ? ` · ${m.providerName}` : ""}`]));
  return (
    <Page title="Dashboard" actions={
      <>
        {admin && <input aria-label="User filter" className={`${inputClass} w-48`} placeholder="All users (user id)" value={user} onChange={(e) => setUser(e.target.value)} />}
        <select aria-label="Time range" className={inputClass} value={hours} onChange={(e) => setHours(Number(e.target.value))}>
          {ranges.map(([l, h]) => <option key={h} value={h}>{l}</option>)}
        </select>
      </>}>
      {!admin && <Note>These figures cover your own calls only; your Keygate administrators see everyone's.</Note>}
      <ErrorBox error={error} />
      {loading && !data && <Spinner label="Aggregating calls…" />}
      {t && (
        <>
          <div className="grid grid-cols-4 gap-4">
            <Metric label="Agent calls" value={Number(t.calls).toLocaleString()} sub={`${Number(t.completed)} completed · ${Number(t.failed)} failed · ${Number(t.cancelled)} cancelled`} />
            <Metric label="Cache hit rate" value={percent(t.cacheHitRate)} sub={`${tokens(t.cacheReadTokens)} of ${tokens(t.cacheReadTokens + t.inputTokens)} input tokens from cache`} />
            <Metric label="Tokens" value={tokens(t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens + t.outputTokens)} sub={`${tokens(t.outputTokens)} output`} />
            <Metric label="Estimated cost" value={usd(t.costUsd)} sub={t.unpricedCalls > 0n ? `${Number(t.unpricedCalls)} calls without a price (${admin ? "set prices in Settings" : "your administrators set prices"})` : `mean TTFT ${ms(Math.round(t.meanTtftMs))}`} />
          </div>
          <Card title="Tokens over time"><TokenChart points={data.series} bucket={data.bucketSize} /></Card>
          <div className={`grid gap-4 ${admin ? "xl:grid-cols-2" : ""}`}>
            <Card title="Per model" className="overflow-x-auto">
              <table className="w-full text-sm">
                <thead><tr className="text-left text-slate-500"><th>Model</th><th>Calls</th><th>Failed</th><th>Cache hit</th><th>Input</th><th>Output</th><th>Mean TTFT</th><th>Cost</th></tr></thead>
                <tbody>
                  {data.perModel.map((m) => (
                    <tr key={m.modelId} className="border-t border-slate-100">
                      <td className="py-1">{m.modelId}</td><td>{num(m.aggregate, "calls")}</td><td>{num(m.aggregate, "failed")}</td>
                      <td>{percent(m.aggregate?.cacheHitRate ?? 0)}</td><td>{tokens(m.aggregate?.inputTokens)}</td><td>{tokens(m.aggregate?.outputTokens)}</td>
                      <td>{ms(Math.round(m.aggregate?.meanTtftMs ?? 0))}</td><td>{usd(m.aggregate?.costUsd ?? 0)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {data.perModel.length === 0 && <p className="py-2 text-sm text-slate-500">No finished calls in this range.</p>}
            </Card>
            {data.perTarget.length > 0 && <Card title="Per target (aliases and key pools)" className="overflow-x-auto">
              <table className="w-full text-sm">
                <thead><tr className="text-left text-slate-500"><th>Target</th><th>Calls</th><th>Failed</th><th>Cache hit</th><th>Input</th><th>Mean TTFT</th></tr></thead>
                <tbody>
                  {data.perTarget.map((t) => (
                    <tr key={t.targetModelId} data-testid="target-row" className="border-t border-slate-100">
                      <td className="py-1">{names.get(t.targetModelId) ?? t.targetModelId}</td><td>{num(t.aggregate, "calls")}</td><td>{num(t.aggregate, "failed")}</td>
                      <td>{percent(t.aggregate?.cacheHitRate ?? 0)}</td><td>{tokens(t.aggregate?.inputTokens)}</td><td>{ms(Math.round(t.aggregate?.meanTtftMs ?? 0))}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Card>}
            {admin && <Card title="Per user" className="overflow-x-auto">
              <table className="w-full text-sm">
                <thead><tr className="text-left text-slate-500"><th>User</th><th>Calls</th><th>Cache hit</th><th>Input</th><th>Output</th><th>Cost</th></tr></thead>
                <tbody>
                  {data.perUser.map((u) => (
                    // Calls outside any user's turn cannot be filtered on: an empty user id means every user.
                    <tr key={u.userId} data-testid="user-row" onClick={u.userId ? () => setUser(u.userId) : undefined}
                      className={`border-t border-slate-100 ${u.userId ? "cursor-pointer hover:bg-indigo-50" : ""} ${u.userId && u.userId === user.trim() ? "bg-indigo-50" : ""}`}>
                      <td className="max-w-48 truncate py-1"><UserId id={u.userId} onPick={setUser} /></td>
                      <td>{num(u.aggregate, "calls")}</td><td>{percent(u.aggregate?.cacheHitRate ?? 0)}</td>
                      <td>{tokens(u.aggregate?.inputTokens)}</td><td>{tokens(u.aggregate?.outputTokens)}</td><td>{usd(u.aggregate?.costUsd ?? 0)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {data.perUser.length === 0 && <p className="py-2 text-sm text-slate-500">No finished calls in this range.</p>}
            </Card>}
          </div>
          {data.tab && data.tab.totals && data.tab.totals.requests > 0n && <TabSection tab={data.tab} admin={admin} onPick={setUser} />}
        </>
      )}
    </Page>
  );
}
