import { useState } from "react";
import { spend } from "../api";
import { spendRange, tokens, usd } from "../format";
import { useAdmin } from "../me";
import { useQueryParam } from "../router";
import { Button, Card, ErrorBox, Field, inputClass, Page, Spinner, useLoad } from "../components/ui";

// day is a date input's value (YYYY-MM-DD) n days before today, in UTC.
function day(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

// SpendPage reports spend per day, team, user and model from call records,
// priced with the console's prices, with a CSV export. A member sees their
// own spend; an administrator everyone's, filterable by team and user.
export function SpendPage() {
  const admin = useAdmin();
  const [from, setFrom] = useQueryParam("from");
  const [to, setTo] = useQueryParam("to");
  const [team, setTeam] = useQueryParam("team");
  const [user, setUser] = useQueryParam("user");
  const start = from || day(29);
  const end = to || day(0);
  const teamFilter = admin ? team.trim() : "";
  const userFilter = admin ? user.trim() : "";
  const { data, error, loading } = useLoad(
    () => spend.getSpendReport({ ...spendRange(start, end), team: teamFilter, userId: userFilter }), [start, end, teamFilter, userFilter]);
  const [csvError, setCsvError] = useState<unknown>();

  const download = async () => {
    try {
      const r = await spend.getSpendReport({ ...spendRange(start, end), team: teamFilter, userId: userFilter, csv: true });
      const url = URL.createObjectURL(new Blob([r.csv], { type: "text/csv" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `keygate-spend-${start}-${end}.csv`;
      a.click();
      URL.revokeObjectURL(url);
      setCsvError(undefined);
    } catch (e) { setCsvError(e); }
  };

  return (
    <Page title="Spend" actions={<Button onClick={() => void download()}>Export CSV</Button>}>
      <Card>
        <div className="space-y-4">
          <p className="text-sm text-slate-600">
            Tokens and cost per day (UTC), team, user and model: Agent turns, Tab, inline edits, commit messages and the compatible API.
            Cost uses the prices in Settings; a user's rows are in the team they are charged to now.
            {!admin && " You see your own spend."}
          </p>
          <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
            <Field label="From"><input type="date" className={inputClass} aria-label="From" value={start} onChange={(e) => setFrom(e.target.value)} /></Field>
            <Field label="To"><input type="date" className={inputClass} aria-label="To" value={end} onChange={(e) => setTo(e.target.value)} /></Field>
            {admin && <Field label="Team"><input className={inputClass} aria-label="Filter by team" value={team} onChange={(e) => setTeam(e.target.value)} placeholder="any team" /></Field>}
            {admin && <Field label="User"><input className={inputClass} aria-label="Filter by user" value={user} onChange={(e) => setUser(e.target.value)} placeholder="any user" /></Field>}
          </div>
          <ErrorBox error={error ?? csvError} />
          {loading && !data && <Spinner label="Loading spend…" />}
          {data && (
            <p className="text-sm" data-testid="spend-total">Total: <span className="font-semibold">{usd(data.totalCostUsd)}</span></p>
          )}
          {data && data.rows.length === 0 && <p className="text-sm text-slate-500">No spend in this range.</p>}
          {data && data.rows.length > 0 && (
            <table className="w-full text-sm">
              <thead>
                <tr className="border-b border-slate-200 text-left text-slate-500">
                  <th className="py-1">Day</th><th>Team</th><th>User</th><th>Model</th><th className="text-right">Calls</th>
                  <th className="text-right">Input</th><th className="text-right">Output</th><th className="text-right">Cost</th>
                </tr>
              </thead>
              <tbody>
                {data.rows.map((r) => (
                  <tr key={`${r.day}|${r.userId}|${r.modelId}`} data-testid="spend-row" className="border-b border-slate-100 last:border-0">
                    <td className="py-1">{r.day}</td><td>{r.team || "–"}</td><td>{r.userId}</td><td>{r.modelId}</td>
                    <td className="text-right">{r.calls.toString()}</td>
                    <td className="text-right">{tokens(r.inputTokens + r.cacheReadTokens + r.cacheWriteTokens)}</td>
                    <td className="text-right">{tokens(r.outputTokens)}</td>
                    <td className="text-right">{usd(r.costUsd)}{r.unpricedCalls > 0n && <span className="text-amber-700" title="calls on a model without a price"> *</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </Card>
    </Page>
  );
}
