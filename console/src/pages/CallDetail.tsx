import { useState } from "react";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { calls as api } from "../api";
import { CacheCause, CacheInsightState, type CacheInsight, type Call, type ResponseChunk } from "../gen/control/v1/call_pb";
import { Badge, Card, ErrorBox, Link, Page, Spinner, useLoad } from "../components/ui";
import { navigate } from "../router";
import { ms, plural, time, tokens } from "../format";
import { StatusBadge, UserId } from "./Calls";

// Timeline draws the milestones of a call on one axis from request start.
function Timeline({ call }: { call: Call }) {
  const t = call.timing;
  if (!t?.requestStartTime) return null;
  const start = timestampDate(t.requestStartTime).getTime();
  const marks = ([
    ["Headers", t.responseHeadersTime], ["First event", t.firstEventTime], ["First text", t.firstTextTime], ["Finished", t.finishTime],
  ] as const).filter(([, ts]) => ts).map(([label, ts]) => ({ label, at: timestampDate(ts!).getTime() - start }));
  const total = Math.max(1, ...marks.map((m) => m.at));
  return (
    <div className="space-y-2" data-testid="timeline">
      <div className="relative h-3 rounded bg-slate-100">
        <div className="absolute inset-y-0 left-0 rounded bg-indigo-200" style={{ width: "100%" }} />
        {marks.map((m) => (
          <div key={m.label} className="absolute -top-1 h-5 w-0.5 bg-indigo-700" style={{ left: `${(m.at / total) * 100}%` }} />
        ))}
      </div>
      <div className="grid grid-cols-4 gap-2 text-xs">
        {marks.map((m) => <div key={m.label}><div className="text-slate-500">{m.label}</div><div className="font-medium">+{m.at} ms</div></div>)}
      </div>
    </div>
  );
}

// causeLabels names each cause of a cache insight; a cause this console
// does not know yet shows as unknown.
const causeLabels: Partial<Record<CacheCause, string>> = {
  [CacheCause.MODE_SWITCH]: "mode switch",
  [CacheCause.MODEL_SWITCH]: "model switch",
  [CacheCause.MCP_CHANGE]: "MCP change",
  [CacheCause.CONTEXT_CHANGE]: "context change",
};

// Causes lists what the user changed since the previous call: why a broken
// call broke, or what a stable one appended without breaking.
function Causes({ insight }: { insight: CacheInsight }) {
  if (insight.causes.length === 0) return null;
  const broken = insight.state === CacheInsightState.BROKEN;
  return (
    <div className="mt-2 flex flex-wrap items-center gap-1 text-xs">
      <span className="text-slate-500">{broken ? "Why it broke:" : "Changed without a break:"}</span>
      {insight.causes.map((c, i) => (
        <span key={i} data-testid="cache-cause"><Badge tone={broken ? "amber" : "slate"}>{causeLabels[c] ?? "unknown cause"}</Badge></span>
      ))}
    </div>
  );
}

function Insight({ insight }: { insight?: CacheInsight }) {
  if (!insight) return null;
  const tone = { [CacheInsightState.STABLE]: "green", [CacheInsightState.BROKEN]: "red", [CacheInsightState.FIRST]: "indigo" }[insight.state as number] as "green" | "red" | "indigo" | undefined;
  const label = CacheInsightState[insight.state]?.toLowerCase() ?? "unknown";
  return (
    <Card title={<span>Prompt cache <Badge tone={tone ?? "slate"}>{label}</Badge></span>}>
      <p className="text-sm" data-testid="cache-insight">{insight.explanation}</p>
      <Causes insight={insight} />
      {insight.promptTokensEstimate > 0n && (
        <div className="mt-2" title="Estimated tokens of this call's prompt; green is the part repeated from the previous call">
          <div className="h-2 w-full overflow-hidden rounded bg-slate-200">
            <div className="h-full bg-green-500" style={{ width: `${(Number(insight.prefixTokensEstimate) / Number(insight.promptTokensEstimate)) * 100}%` }} />
          </div>
          <div className="mt-1 text-xs text-slate-500">
            about {tokens(insight.prefixTokensEstimate)} of {tokens(insight.promptTokensEstimate)} prompt tokens repeat the previous call
          </div>
        </div>
      )}
      {insight.state === CacheInsightState.BROKEN && (
        <dl className="mt-2 grid grid-cols-3 gap-2 text-xs">
          <div><dt className="text-slate-500">Broke at</dt><dd className="font-mono">{insight.breakField}</dd></div>
          <div><dt className="text-slate-500">Cause</dt><dd>{insight.breakCause}</dd></div>
          <div><dt className="text-slate-500">Message</dt><dd className="font-mono">{insight.breakMessageId || "–"}</dd></div>
        </dl>
      )}
      {insight.previousCallId && (
        <p className="mt-2 text-xs text-slate-500">
          Shared {insight.commonMessages} of the previous call's {plural(insight.previousMessages, "message")} (this call sends {insight.messages}).{" "}
          <Link className="text-indigo-700 underline" to={`/calls/${encodeURIComponent(insight.previousCallId)}`}>Previous call</Link>
        </p>
      )}
    </Card>
  );
}

function pretty(body: string) {
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
}

// RawStream shows the response bytes as received: each chunk with its
// arrival offset, or the concatenated text.
function RawStream({ chunks }: { chunks: ResponseChunk[] }) {
  const [joined, setJoined] = useState(false);
  return (
    <Card title={<span>Raw response stream <button className="ml-2 text-xs text-indigo-700 underline" onClick={() => setJoined(!joined)}>{joined ? "Show chunks" : "Show as text"}</button></span>}>
      {joined ? (
        <pre className="max-h-96 overflow-auto rounded bg-slate-900 p-2 text-xs text-slate-100">{chunks.map((c) => c.data).join("")}</pre>
      ) : (
        <div className="max-h-96 overflow-auto rounded bg-slate-900 p-2 font-mono text-xs text-slate-100" data-testid="raw-stream">
          {chunks.map((c) => (
            <div key={c.seq} className="flex gap-3 border-b border-slate-800 py-0.5">
              <span className="w-16 shrink-0 text-right text-slate-400">+{Number(c.offsetMs)} ms</span>
              <span className="whitespace-pre-wrap break-all">{c.data}</span>
            </div>
          ))}
        </div>
      )}
    </Card>
  );
}

export function CallDetailPage({ callId }: { callId: string }) {
  const { data, error, loading } = useLoad(() => api.getCall({ callId }), [callId]);
  const c = data?.call;
  return (
    <Page title="Call">
      <Link className="text-sm text-indigo-700 underline" to="/calls">← All calls</Link>
      <ErrorBox error={error} />
      {loading && <Spinner label="Loading the call…" />}
      {c && (
        <>
          <Card title={<span className="flex items-center gap-2">{c.model?.modelId} <StatusBadge status={c.status} /></span>}>
            <dl className="grid grid-cols-4 gap-3 text-sm">
              <div><dt className="text-slate-500">Call</dt><dd className="font-mono text-xs">{c.callId}</dd></div>
              <div><dt className="text-slate-500">User</dt><dd className="truncate" data-testid="call-user"><UserId id={c.userId} onPick={(id) => navigate(`/calls?user=${encodeURIComponent(id)}`)} /></dd></div>
              <div><dt className="text-slate-500">Started</dt><dd>{time(c.timing?.requestStartTime)}</dd></div>
              <div><dt className="text-slate-500">Time to first token</dt><dd>{ms(c.timing?.ttftMs)}</dd></div>
              <div><dt className="text-slate-500">Duration</dt><dd>{ms(c.timing?.durationMs)}</dd></div>
              <div><dt className="text-slate-500">Input (fresh)</dt><dd>{tokens(c.usage?.inputTokens)}</dd></div>
              <div><dt className="text-slate-500">Cache read / write</dt><dd>{tokens(c.usage?.cacheReadTokens)} / {tokens(c.usage?.cacheWriteTokens)}</dd></div>
              <div><dt className="text-slate-500">Output (reasoning)</dt><dd>{tokens(c.usage?.outputTokens)} ({tokens(c.usage?.reasoningTokens)})</dd></div>
              <div><dt className="text-slate-500">Finish</dt><dd>{c.finishReason || "–"} {c.httpStatus ? `· HTTP ${c.httpStatus}` : ""}</dd></div>
              <div><dt className="text-slate-500">Request URL</dt><dd className="break-all text-xs">{c.model?.requestUrl}</dd></div>
              <div><dt className="text-slate-500">Messages / tools</dt><dd>{c.model?.messageCount} / {c.model?.toolCount}</dd></div>
              <div><dt className="text-slate-500">Effort / tier</dt><dd>{c.model?.reasoningEffort || "default"} / {c.model?.serviceTier || "default"}</dd></div>
              <div><dt className="text-slate-500">Conversation</dt><dd className="truncate text-xs">{c.conversationId ? <Link className="text-indigo-700 underline" to={`/conversations/${encodeURIComponent(c.conversationId)}`}>{c.conversationId}</Link> : "–"}</dd></div>
            </dl>
            {c.errorMessage && <div className="mt-3 rounded bg-red-50 p-2 text-sm text-red-800">{c.errorClass}: {c.errorMessage}</div>}
          </Card>
          <Card title="Timeline"><Timeline call={c} /></Card>
          <Insight insight={data?.cacheInsight} />
          {data?.request ? (
            <Card title={`Request · ${data.request.method} ${data.request.url}`}>
              <table className="mb-2 text-xs"><tbody>{data.request.headers.map((h) => <tr key={h.name}><td className="pr-3 text-slate-500">{h.name}</td><td>{h.value}</td></tr>)}</tbody></table>
              <pre className="max-h-96 overflow-auto rounded bg-slate-50 p-2 text-xs">{pretty(data.request.body)}</pre>
            </Card>
          ) : (
            <Card><p className="text-sm text-slate-500">{c.detailed ? "The request and raw stream of this call were deleted by the retention setting." : "This call was not recorded in detailed mode; turn it on in Settings to keep request bodies and raw streams of new calls."}</p></Card>
          )}
          {data && data.chunks.length > 0 && <RawStream chunks={data.chunks} />}
        </>
      )}
    </Page>
  );
}
