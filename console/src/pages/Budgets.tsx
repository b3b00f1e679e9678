import { useState } from "react";
import { budgets } from "../api";
import { time } from "../format";
import { useAdmin } from "../me";
import { BudgetScopeKind, type BudgetLimitValues, type BudgetScope, type BudgetUsage } from "../gen/control/v1/budget_pb";
import { Badge, Button, Card, ErrorBox, Field, inputClass, Page, Spinner, useLoad } from "../components/ui";

const kindNames: Record<number, string> = {
  [BudgetScopeKind.DEFAULT]: "Default (every user)",
  [BudgetScopeKind.USER]: "User",
  [BudgetScopeKind.TEAM]: "Team",
};

// scopeName says whom limits apply to.
function scopeName(s?: BudgetScope): string {
  if (!s || s.kind === BudgetScopeKind.DEFAULT) return "Default";
  return `${s.kind === BudgetScopeKind.TEAM ? "Team" : "User"} ${s.id}`;
}

const none = (n: number | bigint | undefined) => (!n || Number(n) === 0 ? "no limit" : Number(n).toLocaleString("en-US"));
const usd = (n: number | undefined) => (!n ? "no limit" : `$${n.toFixed(2)}`);

// The limit fields, in the order the form and the table show them.
const fields = [
  { key: "tokensPerDay", label: "Tokens per day" },
  { key: "costPerMonthUsd", label: "Cost per month (USD)" },
  { key: "concurrentRuns", label: "Concurrent runs" },
  { key: "concurrentSubagents", label: "Concurrent subagents" },
  { key: "requestsPerMinute", label: "Requests per minute" },
  { key: "tokensPerMinute", label: "Tokens per minute" },
] as const;
type FieldKey = (typeof fields)[number]["key"];

function Usage({ title, limits, usage }: { title: string; limits?: BudgetLimitValues; usage?: BudgetUsage }) {
  return (
    <div data-testid="budget-usage" className="text-sm">
      <div className="font-medium">{title}</div>
      <div>Tokens today: {Number(usage?.tokensToday ?? 0n).toLocaleString("en-US")} of {none(limits?.tokensPerDay)}</div>
      <div>Cost this month: ${(usage?.costThisMonthUsd ?? 0).toFixed(2)} of {usd(limits?.costPerMonthUsd)}</div>
    </div>
  );
}

// StandingCard shows the signed-in user their own limits and usage, and
// their team's.
function StandingCard() {
  const { data, error, loading } = useLoad(() => budgets.getBudgetStanding({}), []);
  return (
    <Card title="Your budget">
      <ErrorBox error={error} />
      {loading && !data && <Spinner label="Loading your budget…" />}
      {data && (
        <div className="grid grid-cols-2 gap-4">
          <Usage title={`You (${data.from?.kind === BudgetScopeKind.USER ? "your own limits" : "the default limits"})`} limits={data.limits} usage={data.usage} />
          {data.team ? <Usage title={`Team ${data.team}`} limits={data.teamLimits} usage={data.teamUsage} /> : <p className="text-sm text-slate-500">Not charged to a team.</p>}
        </div>
      )}
    </Card>
  );
}

// LimitsCard lists and edits the stored limits (administrators).
function LimitsCard() {
  const { data, error, loading, reload } = useLoad(() => budgets.listBudgetLimits({}).then((r) => r.limits), []);
  const [kind, setKind] = useState<BudgetScopeKind>(BudgetScopeKind.USER);
  const [id, setId] = useState("");
  const [values, setValues] = useState<Record<FieldKey, string>>({
    tokensPerDay: "", costPerMonthUsd: "", concurrentRuns: "", concurrentSubagents: "", requestsPerMinute: "", tokensPerMinute: "",
  });
  const [actionError, setActionError] = useState<unknown>();
  const act = (f: () => Promise<unknown>) => { f().then(() => { setActionError(undefined); reload(); }, setActionError); };
  const num = (k: FieldKey) => Number(values[k] || 0);
  const save = () => act(() => budgets.setBudgetLimits({
    scope: { kind, id: kind === BudgetScopeKind.DEFAULT ? "" : id.trim() },
    limits: {
      tokensPerDay: BigInt(Math.trunc(num("tokensPerDay"))), costPerMonthUsd: num("costPerMonthUsd"),
      concurrentRuns: Math.trunc(num("concurrentRuns")), concurrentSubagents: Math.trunc(num("concurrentSubagents")),
      requestsPerMinute: BigInt(Math.trunc(num("requestsPerMinute"))), tokensPerMinute: BigInt(Math.trunc(num("tokensPerMinute"))),
    },
  }));
  const edit = (s?: BudgetScope, l?: BudgetLimitValues) => {
    setKind(s?.kind ?? BudgetScopeKind.DEFAULT);
    setId(s?.id ?? "");
    setValues({
      tokensPerDay: String(l?.tokensPerDay ?? ""), costPerMonthUsd: String(l?.costPerMonthUsd ?? ""),
      concurrentRuns: String(l?.concurrentRuns ?? ""), concurrentSubagents: String(l?.concurrentSubagents ?? ""),
      requestsPerMinute: String(l?.requestsPerMinute ?? ""), tokensPerMinute: String(l?.tokensPerMinute ?? ""),
    });
  };

  return (
    <Card title="Limits">
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          Limits apply on every replica within about a second of a change, and every change is in the audit log. A user's own limits
          replace the default; a team's limits bound the summed usage of the users charged to it (their first identity-provider group).
          Users are warned in Cursor at 80% of a daily or monthly budget and refused at 100%. Empty or 0 means no limit.
        </p>
        <ErrorBox error={error ?? actionError} />
        <form className="grid grid-cols-3 gap-3" onSubmit={(e) => { e.preventDefault(); save(); }}>
          <Field label="Applies to">
            <select aria-label="Applies to" className={inputClass} value={kind} onChange={(e) => setKind(Number(e.target.value))}>
              {[BudgetScopeKind.DEFAULT, BudgetScopeKind.USER, BudgetScopeKind.TEAM].map((k) => <option key={k} value={k}>{kindNames[k]}</option>)}
            </select>
          </Field>
          <Field label={kind === BudgetScopeKind.TEAM ? "Team (group)" : "User id"}>
            <input aria-label="Scope id" className={inputClass} value={kind === BudgetScopeKind.DEFAULT ? "" : id}
              disabled={kind === BudgetScopeKind.DEFAULT} onChange={(e) => setId(e.target.value)}
              placeholder={kind === BudgetScopeKind.TEAM ? "platform" : "ada@example.com"} />
          </Field>
          <div />
          {fields.map((f) => (
            <Field key={f.key} label={f.label}>
              <input aria-label={f.label} className={inputClass} inputMode="decimal" value={values[f.key]}
                onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} placeholder="no limit" />
            </Field>
          ))}
          <div><Button kind="primary" type="submit" disabled={kind !== BudgetScopeKind.DEFAULT && !id.trim()}>Save limits</Button></div>
        </form>
        {loading && !data && <Spinner label="Loading limits…" />}
        {data && data.length === 0 && <p className="text-sm text-slate-500">No limits: every user may spend without bound.</p>}
        {data && data.length > 0 && (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500">
                <th className="py-1">Applies to</th>{fields.map((f) => <th key={f.key}>{f.label}</th>)}<th>Changed</th><th />
              </tr>
            </thead>
            <tbody>
              {data.map((l) => (
                <tr key={scopeName(l.scope)} data-testid="limit-row" className="border-b border-slate-100 last:border-0">
                  <td className="py-2">{scopeName(l.scope)}</td>
                  <td>{none(l.limits?.tokensPerDay)}</td>
                  <td>{usd(l.limits?.costPerMonthUsd)}</td>
                  <td>{none(l.limits?.concurrentRuns)}</td>
                  <td>{none(l.limits?.concurrentSubagents)}</td>
                  <td>{none(l.limits?.requestsPerMinute)}</td>
                  <td>{none(l.limits?.tokensPerMinute)}</td>
                  <td>{time(l.updateTime)}</td>
                  <td className="space-x-2 text-right">
                    <Button onClick={() => edit(l.scope, l.limits)}>Edit</Button>
                    <Button kind="danger" onClick={() => act(() => budgets.deleteBudgetLimits({ scope: l.scope }))}>Remove</Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Card>
  );
}

// AlertsCard sets the webhook budget alerts go to; its URL holds a token,
// so it is never shown again once saved.
function AlertsCard() {
  const { data, error, reload } = useLoad(() => budgets.getBudgetAlerts({}), []);
  const [url, setUrl] = useState("");
  const [actionError, setActionError] = useState<unknown>();
  const set = (u: string) => {
    budgets.setBudgetAlerts({ webhookUrl: u }).then(() => { setUrl(""); setActionError(undefined); reload(); }, setActionError);
  };
  return (
    <Card title="Alerts">
      <div className="space-y-4">
        <p className="text-sm text-slate-600">
          A Slack-compatible webhook gets a message when a user's or team's daily tokens or monthly cost pass 80% and 100% of its limit,
          once per threshold and period.
        </p>
        <ErrorBox error={error ?? actionError} />
        {data && (data.webhookConfigured
          ? <p className="text-sm" data-testid="webhook-status"><Badge tone="green">Webhook set</Badge> {data.webhookHost}</p>
          : <p className="text-sm text-slate-500" data-testid="webhook-status">No webhook: budgets send no alerts.</p>)}
        <form className="flex items-end gap-3" onSubmit={(e) => { e.preventDefault(); set(url.trim()); }}>
          <div className="flex-1">
            <Field label="Webhook URL" hint="Stored encrypted; it is never shown again.">
              <input aria-label="Webhook URL" type="password" autoComplete="off" className={inputClass} value={url}
                onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.slack.com/services/…" />
            </Field>
          </div>
          <div className="space-x-2 pb-5">
            <Button kind="primary" type="submit" disabled={!url.trim()}>Save webhook</Button>
            {data?.webhookConfigured && <Button kind="danger" onClick={() => set("")}>Remove webhook</Button>}
          </div>
        </form>
      </div>
    </Card>
  );
}

// BudgetsPage shows everyone their own budget, and administrators the
// limits and alerts of the deployment.
export function BudgetsPage() {
  const admin = useAdmin();
  return (
    <Page title="Budgets">
      <div className="space-y-6">
        <StandingCard />
        {admin && <LimitsCard />}
        {admin && <AlertsCard />}
      </div>
    </Page>
  );
}
