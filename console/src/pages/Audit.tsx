import { useState } from "react";
import { auditEntries, auditJSON, type AuditEntry } from "../account";
import { Badge, Button, Card, ErrorBox, Spinner, useLoad } from "../components/ui";

function show(v: unknown): string {
  return v === undefined ? "–" : typeof v === "string" ? v : JSON.stringify(v);
}

// changes lists the top-level fields that differ between before and after;
// a creation or deletion (one side missing) lists the side that exists.
function changes(before: unknown, after: unknown): { field: string; before: unknown; after: unknown }[] {
  const obj = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const b = obj(before), a = obj(after);
  if (!b && !a) return before === undefined && after === undefined ? [] : [{ field: "value", before, after }];
  const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(a ?? {})])];
  return keys.filter((k) => JSON.stringify(b?.[k]) !== JSON.stringify(a?.[k])).map((k) => ({ field: k, before: b?.[k], after: a?.[k] }));
}

// label names an audited object by its display name, if it has one.
function label(v: unknown): string {
  const o = (v ?? {}) as Record<string, unknown>;
  const name = o.DisplayName ?? o.displayName ?? o.name;
  return typeof name === "string" && name ? `“${name}”` : "";
}

function Change({ e }: { e: AuditEntry }) {
  const before = auditJSON(e.before), after = auditJSON(e.after);
  const list = changes(before, after);
  if (list.length === 0) return <span className="text-slate-400">no recorded change</span>;
  const fields = (
    <ul className="space-y-0.5 font-mono text-xs">
      {list.map((c) => (
        <li key={c.field}>
          <span className="text-slate-500">{c.field}:</span>{" "}
          {before !== undefined && <span className="text-red-700 line-through decoration-red-300">{show(c.before)}</span>}
          {before !== undefined && after !== undefined && " → "}
          {after !== undefined && <span className="text-green-800">{show(c.after)}</span>}
        </li>
      ))}
    </ul>
  );
  // A creation or deletion carries the whole object: fold it away.
  if (list.length > 3 && (before === undefined || after === undefined)) {
    return (
      <details>
        <summary className="cursor-pointer text-xs text-slate-600">
          {before === undefined ? "created" : "deleted"} {label(before ?? after)} ({list.length} fields)
        </summary>
        <div className="mt-1">{fields}</div>
      </details>
    );
  }
  return fields;
}

// AuditCard shows the audit log to administrators, newest first. The Access
// page remounts it (a new key) after each audited action it takes, so the
// log shows that action.
export function AuditCard({ admin }: { admin: boolean }) {
  const { data, error, loading, reload } = useLoad(() => (admin ? auditEntries() : Promise.resolve([])), [admin]);
  const [older, setOlder] = useState<AuditEntry[]>([]);
  const [end, setEnd] = useState(false);
  const [moreError, setMoreError] = useState<unknown>();
  const shown = [...(data ?? []), ...older];

  const more = async () => {
    try {
      const next = await auditEntries(shown[shown.length - 1]?.seq);
      setOlder([...older, ...next]); setEnd(next.length === 0); setMoreError(undefined);
    } catch (e) { setMoreError(e); }
  };

  if (!admin) {
    return (
      <Card title="Audit log">
        <p className="text-sm text-slate-600">Only administrators can read the audit log; ask one if you need to know who changed what.</p>
      </Card>
    );
  }
  return (
    <Card title={<span className="flex items-center justify-between">Audit log <Button onClick={() => { setOlder([]); setEnd(false); reload(); }}>Refresh</Button></span>}>
      <div className="space-y-3">
        <p className="text-sm text-slate-600">Every administrative change, newest first. Secrets appear masked, as Keygate stored them.</p>
        <ErrorBox error={error ?? moreError} />
        {loading && <Spinner label="Loading the audit log…" />}
        {data && shown.length === 0 && <p className="text-sm text-slate-500">Nothing recorded yet.</p>}
        {shown.length > 0 && (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500"><th className="py-1">When</th><th>Who</th><th>What</th><th>Target</th><th>Change</th></tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.seq} data-testid="audit-row" className="border-b border-slate-100 align-top last:border-0">
                  <td className="whitespace-nowrap py-2 pr-3">{new Date(e.at).toLocaleString()}</td>
                  <td className="whitespace-nowrap pr-3">{e.actorName || e.actorId} <Badge>{e.role}</Badge></td>
                  <td className="pr-3"><code className="text-xs">{e.action}</code></td>
                  <td className="pr-3"><code className="text-xs">{e.target}</code></td>
                  <td><Change e={e} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {data && data.length >= 50 && !end && <Button onClick={() => void more()}>Load older entries</Button>}
      </div>
    </Card>
  );
}
