import { useState } from "react";
import { memories } from "../api";
import { time } from "../format";
import { useAdmin } from "../me";
import type { Memory } from "../gen/control/v1/memory_pb";
import { Button, Card, ErrorBox, Field, inputClass, Page, Spinner, useLoad } from "../components/ui";

// MemoriesPage lists the memories users keep in Cursor (Settings → Rules &
// Memories), which Keygate stores per user and adds to each of their
// turns: a member sees and deletes their own, an administrator everyone's,
// filterable by user.
export function MemoriesPage() {
  const admin = useAdmin();
  const [user, setUser] = useState("");
  const { data, error, loading, reload } = useLoad(() => memories.listMemories({ userId: user.trim() }).then((r) => r.memories), [user]);
  const [actionError, setActionError] = useState<unknown>();

  const remove = async (m: Memory) => {
    if (!window.confirm(`Delete the memory “${m.title || m.knowledge.slice(0, 40)}”? Cursor's Agent stops being told it from the next turn on.`)) return;
    try { await memories.deleteMemory({ id: m.id }); setActionError(undefined); reload(); } catch (e) { setActionError(e); }
  };

  return (
    <Page title="Memories">
      <Card>
        <div className="space-y-4">
          <p className="text-sm text-slate-600">
            What users asked Cursor's Agent to remember. Keygate keeps each user's memories for them alone and gives them to the
            model at the start of their turns; users add and edit them in Cursor (Settings → Rules &amp; Memories).
          </p>
          {admin && (
            <Field label="User" hint="Show one user's memories; empty shows everyone's.">
              <input className={inputClass} aria-label="Filter by user" value={user} onChange={(e) => setUser(e.target.value)} placeholder="user id" />
            </Field>
          )}
          <ErrorBox error={error ?? actionError} />
          {loading && !data && <Spinner label="Loading memories…" />}
          {data && data.length === 0 && <p className="text-sm text-slate-500">No memories.</p>}
          {data && data.length > 0 && (
            <table className="w-full text-sm">
              <thead>
                <tr className="border-b border-slate-200 text-left text-slate-500">
                  {admin && <th className="py-1">User</th>}<th className="py-1">Title</th><th>Memory</th><th>Updated</th><th />
                </tr>
              </thead>
              <tbody>
                {data.map((m) => (
                  <tr key={m.id} data-testid="memory-row" className="border-b border-slate-100 align-top last:border-0">
                    {admin && <td className="py-2">{m.userId}</td>}
                    <td className="py-2 font-medium">{m.title || "–"}</td>
                    <td className="whitespace-pre-wrap py-2">{m.knowledge}</td>
                    <td className="py-2">{time(m.updateTime)}</td>
                    <td className="py-2 text-right"><Button kind="danger" onClick={() => void remove(m)}>Delete</Button></td>
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
