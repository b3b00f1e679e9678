import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { CacheCause, CacheInsightState, CallService, CallStatus, GetCallResponseSchema, type GetCallResponse } from "../gen/control/v1/call_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { at, call } from "../test/fixtures";
import { CallDetailPage } from "./CallDetail";

function recorded(): GetCallResponse {
  const c = call("call-9", { user: "bob", model: "claude-x", status: CallStatus.COMPLETED, conversation: "conv-1", ttftMs: 320n, durationMs: 15_000n, input: 1200n, cached: 30_000n, output: 80n });
  c.timing = { ...c.timing!, requestStartTime: at("2026-11-30T10:00:00.000Z"), responseHeadersTime: at("2026-11-30T10:00:00.120Z"), firstTextTime: at("2026-11-30T10:00:00.320Z"), finishTime: at("2026-11-30T10:00:15.000Z") };
  c.finishReason = "stop"; c.httpStatus = 200; c.detailed = true;
  return create(GetCallResponseSchema, {
    call: c,
    request: { method: "POST", url: "https://api.example/v1/messages", headers: [{ name: "content-type", value: "application/json" }], body: '{"model":"claude-x","stream":true}' },
    chunks: [{ seq: 1, offsetMs: 120n, data: "data: hel" }, { seq: 2, offsetMs: 300n, data: "lo\n" }],
    cacheInsight: {
      state: CacheInsightState.BROKEN, explanation: "The system prompt changed.", causes: [CacheCause.MODEL_SWITCH, CacheCause.MCP_CHANGE, 99 as CacheCause],
      breakField: "system", breakCause: "edited", breakMessageId: "", previousCallId: "call-8", commonMessages: 3, previousMessages: 1, messages: 5,
      promptTokensEstimate: 40_000n, prefixTokensEstimate: 30_000n,
    },
  });
}

function fake(answer: () => GetCallResponse) {
  const asked: string[] = [];
  serve((r) => r.service(CallService, { getCall: (req) => { asked.push(req.callId); return answer(); } }));
  return asked;
}

describe("CallDetailPage", () => {
  it("shows the call's figures, timeline, recorded request and raw stream", async () => {
    const asked = fake(recorded);
    const { user } = renderAs("admin", <CallDetailPage callId="call-9" />);
    expect(await screen.findByText("call-9")).toBeInTheDocument();
    expect(asked).toEqual(["call-9"]);

    expect(screen.getByText("320 ms")).toBeInTheDocument(); // time to first token
    expect(screen.getByText("15.0 s")).toBeInTheDocument();
    expect(screen.getByText("30.0k / 0")).toBeInTheDocument(); // cache read / write
    expect(screen.getByText("stop · HTTP 200")).toBeInTheDocument();

    const timeline = within(screen.getByTestId("timeline"));
    expect(timeline.getByText("Headers").nextSibling).toHaveTextContent("+120 ms");
    expect(timeline.getByText("First text").nextSibling).toHaveTextContent("+320 ms");
    expect(timeline.getByText("Finished").nextSibling).toHaveTextContent("+15000 ms");
    expect(timeline.queryByText("First event")).not.toBeInTheDocument(); // no such milestone recorded

    expect(screen.getByText("Request · POST https://api.example/v1/messages")).toBeInTheDocument();
    expect(screen.getByText(/"stream": true/)).toBeInTheDocument(); // the body pretty-printed

    const raw = within(screen.getByTestId("raw-stream"));
    expect(raw.getByText("+120 ms")).toBeInTheDocument();
    expect(raw.getByText("data: hel")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Show as text" }));
    expect(screen.queryByTestId("raw-stream")).not.toBeInTheDocument();
    expect(screen.getByText("data: hello", { exact: false })).toBeInTheDocument();

    // The user filters the calls list; the conversation opens its page.
    await user.click(within(screen.getByTestId("call-user")).getByRole("button", { name: "bob" }));
    expect(window.location.pathname + window.location.search).toBe("/calls?user=bob");
  });

  it("explains a broken prompt cache: what changed, where it broke and how much repeats", async () => {
    fake(recorded);
    const { user } = renderAs("admin", <CallDetailPage callId="call-9" />);
    expect(await screen.findByTestId("cache-insight")).toHaveTextContent("The system prompt changed.");
    expect(screen.getByText("broken")).toBeInTheDocument();
    expect(screen.getByText("Why it broke:")).toBeInTheDocument();
    expect(screen.getAllByTestId("cache-cause").map((c) => c.textContent)).toEqual(["model switch", "MCP change", "unknown cause"]);
    expect(screen.getByText("about 30.0k of 40.0k prompt tokens repeat the previous call")).toBeInTheDocument();
    expect(screen.getByText("Broke at").nextSibling).toHaveTextContent("system");
    expect(screen.getByText("Message").nextSibling).toHaveTextContent("–");
    expect(screen.getByText(/Shared 3 of the previous call's 1 message \(this call sends 5\)/)).toBeInTheDocument();
    await user.click(screen.getByRole("link", { name: "Previous call" }));
    expect(window.location.pathname).toBe("/calls/call-8");
  });

  it("says why a call has no recorded request", async () => {
    const plain = recorded();
    plain.request = undefined; plain.chunks = []; plain.call!.detailed = false; plain.cacheInsight = undefined;
    fake(() => plain);
    const { unmount } = renderAs("admin", <CallDetailPage callId="call-9" />);
    expect(await screen.findByText(/was not recorded in detailed mode/)).toBeInTheDocument();
    expect(screen.queryByText(/Raw response stream/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Prompt cache/)).not.toBeInTheDocument();
    unmount();

    plain.call!.detailed = true; // recorded, then deleted by the retention setting
    renderAs("admin", <CallDetailPage callId="call-9" />);
    expect(await screen.findByText(/deleted by the retention setting/)).toBeInTheDocument();
  });

  it("shows the server's message for a call that does not exist", async () => {
    serve((r) => r.service(CallService, { getCall: () => { throw new ConnectError("call not found", Code.NotFound); } }));
    renderAs("admin", <CallDetailPage callId="nope" />);
    expect(await screen.findByRole("alert")).toHaveTextContent("call not found");
  });
});
