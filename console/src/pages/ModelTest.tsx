import { useState } from "react";
import { models as api } from "../api";
import { TestPhase, type TestResult } from "../gen/control/v1/model_pb";
import { Button, ErrorBox, Link } from "../components/ui";
import { ms } from "../format";

const phaseLabel: Record<number, string> = {
  [TestPhase.CONNECTING]: "Connecting to the provider…",
  [TestPhase.STREAMING]: "Receiving the answer…",
  [TestPhase.DONE]: "Done",
};

// ModelTest runs a connection test and shows its progress as it streams.
export function ModelTest({ modelId }: { modelId: string }) {
  const [phase, setPhase] = useState<TestPhase>();
  const [chars, setChars] = useState(0);
  const [result, setResult] = useState<TestResult>();
  const [error, setError] = useState<unknown>();
  const [raw, setRaw] = useState(false);

  const run = async () => {
    setResult(undefined); setError(undefined); setChars(0); setPhase(TestPhase.CONNECTING);
    try {
      for await (const m of api.testModel({ id: modelId })) {
        setPhase(m.phase);
        setChars(Number(m.receivedChars));
        if (m.result) setResult(m.result);
      }
    } catch (e) { setError(e); } finally { setPhase(undefined); }
  };

  return (
    <div className="space-y-2">
      <Button onClick={() => void run()} disabled={phase !== undefined}>Test connection</Button>
      {phase !== undefined && (
        <div role="status" className="text-sm text-slate-600">
          {phaseLabel[phase]} {chars > 0 && `${chars} characters`}
          <div className="mt-1 h-1.5 w-64 overflow-hidden rounded bg-slate-200">
            <div className="h-full bg-indigo-500 transition-all" style={{ width: `${Math.min(100, (chars / 440) * 100)}%` }} />
          </div>
        </div>
      )}
      <ErrorBox error={error} />
      {result && (
        <div data-testid="test-result" className={`rounded-md border p-3 text-sm ${result.ok ? "border-green-200 bg-green-50" : "border-red-200 bg-red-50"}`}>
          {result.ok ? (
            <div className="flex flex-wrap gap-x-6 gap-y-1">
              <span className="font-medium text-green-800">Connection works</span>
              <span>Time to first token: <b>{ms(result.timeToFirstTokenMs)}</b></span>
              <span>Speed: <b>{result.tokensPerSecond.toFixed(1)} tokens/s</b>{result.tokensEstimated && " (estimated)"}</span>
              <span>Output: <b>{Number(result.outputTokens)} tokens</b> in {ms(result.durationMs)}</span>
            </div>
          ) : (
            <div className="text-red-800">Test failed: {result.error}</div>
          )}
          {result.outputText && <pre className="mt-2 max-h-24 overflow-auto whitespace-pre-wrap text-xs text-slate-600">{result.outputText}</pre>}
          <div className="mt-2 flex gap-3 text-xs">
            {result.rawResponse ? <button className="text-indigo-700 underline" onClick={() => setRaw(!raw)}>{raw ? "Hide" : "Show"} raw response</button>
              : <span className="text-slate-500">Turn on detailed mode in Settings to see the raw response.</span>}
            <Link className="text-indigo-700 underline" to={`/calls/${encodeURIComponent(result.callId)}`}>Open the call record</Link>
          </div>
          {raw && <pre className="mt-2 max-h-64 overflow-auto rounded bg-slate-900 p-2 text-xs text-slate-100">{result.rawResponse}</pre>}
        </div>
      )}
    </div>
  );
}
