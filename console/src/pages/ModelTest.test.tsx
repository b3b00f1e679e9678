import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { Code, ConnectError } from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import { ModelService, TestPhase } from "../gen/control/v1/model_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { gate } from "../test/fixtures";
import { ModelTest } from "./ModelTest";

describe("ModelTest", () => {
  it("shows the test's progress as it streams, then what the provider answered", async () => {
    const streaming = gate();
    const asked: string[] = [];
    serve((r) => r.service(ModelService, {
      async *testModel(req) {
        asked.push(req.id);
        yield { phase: TestPhase.STREAMING, receivedChars: 120n };
        await streaming.opened;
        yield { phase: TestPhase.DONE, receivedChars: 440n, result: { ok: true, timeToFirstTokenMs: 640n, durationMs: 12_500n, outputTokens: 110n, tokensEstimated: true, tokensPerSecond: 9.64, outputText: "Hello from the model", callId: "call/7", rawResponse: "data: {\"x\":1}" } };
      },
    }));
    const { user } = renderAs("admin", <ModelTest modelId="m-1" />);
    await user.click(screen.getByRole("button", { name: "Test connection" }));

    expect(await screen.findByText(/Receiving the answer… 120 characters/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Test connection" })).toBeDisabled(); // one test at a time
    streaming.open();

    const result = within(await screen.findByTestId("test-result"));
    expect(asked).toEqual(["m-1"]);
    expect(result.getByText("Connection works")).toBeInTheDocument();
    expect(result.getByText("640 ms")).toBeInTheDocument();
    expect(result.getByText("9.6 tokens/s").parentElement).toHaveTextContent("Speed: 9.6 tokens/s (estimated)");
    expect(result.getByText("110 tokens").parentElement).toHaveTextContent("Output: 110 tokens in 12.5 s");
    expect(result.getByText("Hello from the model")).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole("status")).not.toBeInTheDocument());
    expect(screen.getByRole("button", { name: "Test connection" })).toBeEnabled();

    await user.click(result.getByRole("button", { name: "Show raw response" }));
    expect(result.getByText('data: {"x":1}')).toBeInTheDocument();
    await user.click(result.getByRole("link", { name: "Open the call record" }));
    expect(window.location.pathname).toBe("/calls/call%2F7");
  });

  it("shows a failed test's reason, and where to turn on the raw response", async () => {
    serve((r) => r.service(ModelService, {
      testModel: () => createAsyncIterable([{ phase: TestPhase.DONE, result: { ok: false, error: "401 invalid API key", callId: "c-1" } }]),
    }));
    const { user } = renderAs("admin", <ModelTest modelId="m-1" />);
    await user.click(screen.getByRole("button", { name: "Test connection" }));
    const result = within(await screen.findByTestId("test-result"));
    expect(result.getByText("Test failed: 401 invalid API key")).toBeInTheDocument();
    expect(result.getByText(/Turn on detailed mode in Settings/)).toBeInTheDocument();
  });

  it("shows an interrupted stream's error and offers the test again", async () => {
    serve((r) => r.service(ModelService, {
      testModel: () => { throw new ConnectError("the provider refused the connection", Code.Unavailable); }, // before its first message
    }));
    const { user } = renderAs("admin", <ModelTest modelId="m-1" />);
    await user.click(screen.getByRole("button", { name: "Test connection" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(/^the provider refused the connection$/);
    expect(screen.getByRole("button", { name: "Test connection" })).toBeEnabled();
  });
});
