// Small builders for the control API's messages the pages show.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { CallKind, CallSchema, CallStatus, type Call } from "../gen/control/v1/call_pb";

export const at = (iso: string) => timestampFromDate(new Date(iso));

export function call(id: string, fields: Partial<{ model: string; user: string; status: CallStatus; kind: CallKind; client: string; conversation: string; ttftMs: bigint; durationMs: bigint; input: bigint; cached: bigint; output: bigint }> = {}): Call {
  return create(CallSchema, {
    callId: id, userId: fields.user ?? "", conversationId: fields.conversation ?? "", status: fields.status ?? CallStatus.COMPLETED,
    kind: fields.kind ?? CallKind.AGENT, client: fields.client ?? "",
    model: { modelId: fields.model ?? "gpt-x" },
    timing: { requestStartTime: at("2026-11-30T10:00:00Z"), ttftMs: fields.ttftMs ?? 0n, durationMs: fields.durationMs ?? 0n },
    usage: { inputTokens: fields.input ?? 0n, cacheReadTokens: fields.cached ?? 0n, outputTokens: fields.output ?? 0n },
  });
}

// gate is a promise a test resolves when it chooses, to answer a request late.
export function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { opened, open };
}
