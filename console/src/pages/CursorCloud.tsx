import { useState } from "react";
import { dashboard } from "../api";
import { Badge, Card, ErrorBox, Note, Page, Spinner, useLoad } from "../components/ui";
import { plural } from "../format";
import { useAdmin } from "../me";

// bytes formats a byte count in binary units.
function bytes(v: bigint): string {
  const n = Number(v);
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const policyTone = { allow: "amber", metadata: "green", deny: "indigo" } as const;

// CursorCloudPage shows what Keygate let through to Cursor's own service and
// what it kept back: the policy in force, and the busiest routes per day and
// user. Administrators see everyone; members see their own requests.
export function CursorCloudPage() {
  const admin = useAdmin();
  const [days, setDays] = useState(7);
  const { data, error, loading } = useLoad(() => dashboard.getCursorCloud({ days }), [days]);
  const policy = data?.policy ?? "";
  return (
    <Page title="Cursor cloud">
      <Card title="Policy">
        {loading && !data ? <Spinner label="Loading…" /> : null}
        <ErrorBox error={error} />
        {data && (
          <div className="space-y-2 text-sm">
            <p>
              <span className="mr-2">KEYGATE_CURSOR_CLOUD</span>
              <Badge tone={policyTone[policy as keyof typeof policyTone] ?? "slate"}>{policy || "allow"}</Badge>
            </p>
            <p data-testid="policy-meaning">{data.meaning}</p>
            <Note>
              Of the Cursor client&apos;s {data.servedRoutes + data.metadataRoutes + data.codeRoutes} routes, Keygate answers{" "}
              {data.servedRoutes} itself; of the rest, {plural(data.metadataRoutes, "route")} carry only account, configuration,
              feature-flag or telemetry data, and {data.codeRoutes} (with any route Keygate does not know) count as code. A route
              Keygate answers reaches Cursor only when Keygate relays it (a turn on a model it does not serve, Tab without a Tab
              model), and then as its class says.
              {admin ? " An administrator changes the policy with KEYGATE_CURSOR_CLOUD or --cursor-cloud." : ""}
            </Note>
          </div>
        )}
      </Card>
      <Card title={admin ? "Requests to Cursor, everyone" : "Your requests to Cursor"} className="mt-4">
        <label className="mb-2 block text-sm">
          <span className="mr-2">Days</span>
          <select aria-label="Days" value={days} onChange={(e) => setDays(Number(e.target.value))} className="rounded border px-1">
            {[1, 7, 30, 90].map((d) => <option key={d} value={d}>{d === 1 ? "Today" : `Last ${d} days`}</option>)}
          </select>
        </label>
        {data && data.rows.length === 0 ? <p className="text-sm text-slate-500">Nothing went to Cursor, and nothing was refused, in this range.</p> : null}
        {data && data.rows.length > 0 && (
          <table className="w-full text-left text-sm">
            <thead>
              <tr className="text-slate-500">
                <th>Day</th>{admin && <th>User</th>}<th>Route</th><th>Decision</th>
                <th className="text-right">Requests</th><th className="text-right">Up</th><th className="text-right">Down</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((r) => (
                <tr key={`${r.day}|${r.userId}|${r.service}|${r.method}|${r.decision}`} data-testid="cloud-row" className="border-t border-slate-100">
                  <td>{r.day}</td>
                  {admin && <td>{r.userId || <span className="text-slate-400" title="made outside a user's request">–</span>}</td>}
                  <td className="font-mono text-xs">{r.service ? `${r.service}/` : ""}{r.method}</td>
                  <td><Badge tone={r.decision === "refused" ? "red" : "slate"}>{r.decision}</Badge></td>
                  <td className="text-right">{r.requests.toString()}</td>
                  <td className="text-right">{bytes(r.bytesUp)}</td>
                  <td className="text-right">{bytes(r.bytesDown)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </Page>
  );
}
