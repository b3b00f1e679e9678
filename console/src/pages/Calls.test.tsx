import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { CallKind, CallService, CallStatus, type ListCallsRequest } from "../gen/control/v1/call_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { call, gate } from "../test/fixtures";
import { CallsPage } from "./Calls";

// fake answers ListCalls with answer(request), recording every request.
function fake(answer: (req: ListCallsRequest) => Promise<{ calls: ReturnType<typeof call>[]; nextPageToken?: string }> | { calls: ReturnType<typeof call>[]; nextPageToken?: string }) {
  const sent: ListCallsRequest[] = [];
  serve((r) => r.service(CallService, { listCalls: async (req) => { sent.push(req); return answer(req); } }));
  return sent;
}

const rows = () => screen.queryAllByTestId("call-row");

describe("CallsPage", () => {
  it("lists everyone's calls of the last 7 days for an administrator, with the user and formatted timings and tokens", async () => {
    const sent = fake(() => ({ calls: [call("c1", { user: "bob", model: "claude-x", status: CallStatus.ERROR, ttftMs: 850n, durationMs: 12_345n, input: 12_345n, cached: 2_500_000n, output: 42n })] }));
    renderAs("admin", <CallsPage />);

    await waitFor(() => expect(rows()).toHaveLength(1));
    const row = within(rows()[0]);
    expect(row.getByTestId("call-user")).toHaveTextContent("bob");
    for (const text of ["claude-x", "error", "850 ms", "12.3 s", "12.3k", "2.50M", "42"]) expect(row.getByText(text)).toBeInTheDocument();

    const f = sent[0].filter!;
    expect(f).toMatchObject({ status: CallStatus.UNSPECIFIED, kind: CallKind.UNSPECIFIED, userId: "", modelId: "", conversationId: "" });
    const weekAgo = Date.now() / 1000 - 7 * 24 * 3600;
    expect(Math.abs(Number(f.startTime!.seconds) - weekAgo)).toBeLessThan(60);
  });

  it("filters by status, time range and user, keeping the user in the query string", async () => {
    const sent = fake((req) => ({ calls: [call(`c-${sent.length}`, { user: req.filter?.userId || "bob" })] }));
    const { user } = renderAs("admin", <CallsPage />);
    await waitFor(() => expect(rows()).toHaveLength(1));

    await user.selectOptions(screen.getByRole("combobox", { name: "Status filter" }), "Error");
    await waitFor(() => expect(sent.at(-1)!.filter!.status).toBe(CallStatus.ERROR));
    await user.selectOptions(screen.getByRole("combobox", { name: "Time range" }), "All time");
    await waitFor(() => expect(sent.at(-1)!.filter!.startTime).toBeUndefined());

    // A click on a call's user filters by that user, and the page's URL says so.
    await user.click(within(rows()[0]).getByRole("button", { name: "bob" }));
    await waitFor(() => expect(sent.at(-1)!.filter!.userId).toBe("bob"));
    expect(window.location.search).toBe("?user=bob");
    expect(screen.getByRole("textbox", { name: "User filter" })).toHaveValue("bob");
    expect(window.location.pathname).toBe("/"); // filtering did not open the call

    await user.clear(screen.getByRole("textbox", { name: "User filter" }));
    await waitFor(() => expect(sent.at(-1)!.filter!.userId).toBe(""));
    expect(window.location.search).toBe("");
  });

  it("shows each call's kind and filters by kind", async () => {
    const sent = fake((req) => ({
      calls: req.filter?.kind === CallKind.TAB ? [call("t1", { kind: CallKind.TAB })]
        : [call("a1"), call("t1", { kind: CallKind.TAB }), call("x1", { kind: CallKind.TEST })],
    }));
    const { user } = renderAs("member", <CallsPage />);
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(screen.getAllByTestId("call-kind").map((c) => c.textContent)).toEqual(["agent", "tab", "test"]);

    await user.selectOptions(screen.getByRole("combobox", { name: "Kind filter" }), "Tab");
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(sent.at(-1)!.filter!.kind).toBe(CallKind.TAB);
    expect(screen.getByTestId("call-kind")).toHaveTextContent("tab");

    await user.selectOptions(screen.getByRole("combobox", { name: "Kind filter" }), "Any kind");
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(sent.at(-1)!.filter!.kind).toBe(CallKind.UNSPECIFIED);
  });

  it("names the client of a call of the compatible API next to its kind", async () => {
    fake(() => ({ calls: [call("a1"), call("p1", { kind: CallKind.API, client: "claude-code" })] }));
    renderAs("member", <CallsPage />);
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(screen.getAllByTestId("call-kind").map((c) => c.textContent)).toEqual(["agent", "api"]);
    expect(screen.getAllByTestId("call-client").map((c) => c.textContent)).toEqual(["claude-code"]);
  });

  it("opens a call's details from its row", async () => {
    fake(() => ({ calls: [call("call/1")] }));
    const { user } = renderAs("admin", <CallsPage />);
    await waitFor(() => expect(rows()).toHaveLength(1));
    await user.click(rows()[0]);
    expect(window.location.pathname).toBe("/calls/call%2F1");
  });

  it("gives a member neither the user filter nor the user column, and ignores a user in the URL", async () => {
    window.history.replaceState(null, "", "/calls?user=bob");
    const sent = fake(() => ({ calls: [call("c1", { user: "max" })] }));
    renderAs("member", <CallsPage />);
    await waitFor(() => expect(rows()).toHaveLength(1));

    expect(screen.getByTestId("role-note")).toHaveTextContent("These are your own calls only");
    expect(screen.queryByRole("textbox", { name: "User filter" })).not.toBeInTheDocument();
    expect(screen.queryByRole("columnheader", { name: "User" })).not.toBeInTheDocument();
    expect(screen.queryByTestId("call-user")).not.toBeInTheDocument();
    expect(sent.every((r) => r.filter!.userId === "")).toBe(true);
  });

  it("appends the next page on Load more, and new filters start again from the first page", async () => {
    const sent = fake((req) => {
      if (req.pageToken === "p2") return { calls: [call("c3"), call("c4")] };
      return req.filter?.modelId ? { calls: [call("only", { model: req.filter.modelId })] } : { calls: [call("c1"), call("c2")], nextPageToken: "p2" };
    });
    const { user } = renderAs("admin", <CallsPage />);
    await waitFor(() => expect(rows()).toHaveLength(2));

    await user.click(screen.getByRole("button", { name: "Load more" }));
    await waitFor(() => expect(rows()).toHaveLength(4));
    expect(sent.at(-1)).toMatchObject({ pageToken: "p2", pageSize: 50 });
    expect(screen.queryByRole("button", { name: "Load more" })).not.toBeInTheDocument(); // the last page

    await user.type(screen.getByRole("textbox", { name: "Model filter" }), "m");
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(within(rows()[0]).getByText("m")).toBeInTheDocument();
  });

  it("shows the latest filter's answer when an older request answers after it", async () => {
    const late = gate(), answered = gate();
    fake(async (req) => {
      if (!req.filter?.modelId) { await late.opened; answered.open(); return { calls: [call("old", { model: "stale-model" })] }; }
      return { calls: [call("new", { model: "fresh-model" })] };
    });
    const { user } = renderAs("admin", <CallsPage />);
    expect(screen.getByRole("status")).toHaveTextContent("Loading calls…");

    await user.type(screen.getByRole("textbox", { name: "Model filter" }), "f");
    await waitFor(() => expect(rows()).toHaveLength(1));
    late.open();
    await answered.opened;
    await new Promise((r) => setTimeout(r, 100)); // the late answer reaches the page
    expect(rows()).toHaveLength(1);
    expect(screen.getByText("fresh-model")).toBeInTheDocument();
    expect(screen.queryByText("stale-model")).not.toBeInTheDocument();
  });

  it("says so when no call matches, and shows a failure the way the server phrased it", async () => {
    fake(() => ({ calls: [] }));
    const { unmount } = renderAs("admin", <CallsPage />);
    expect(await screen.findByText(/No calls match/)).toBeInTheDocument();
    unmount();

    serve(() => {}); // a Keygate without the call service
    renderAs("admin", <CallsPage />);
    expect(await screen.findByRole("alert")).toHaveTextContent("This Keygate does not offer this yet");
  });
});
