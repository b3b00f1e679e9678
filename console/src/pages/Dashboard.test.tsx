import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { create } from "@bufbuild/protobuf";
import { BucketSize, DashboardService, GetDashboardResponseSchema, type GetDashboardRequest } from "../gen/control/v1/dashboard_pb";
import { ModelSchema, ModelService } from "../gen/control/v1/model_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { at } from "../test/fixtures";
import { DashboardPage } from "./Dashboard";

const tab = {
  totals: { requests: 30n },
  perModel: [{ modelId: "fim-a", aggregate: { requests: 30n, failed: 1n, accepted: 6n, partiallyAccepted: 3n, rejected: 3n, acceptanceRate: 0.75, p50TtftMs: 180.4, costUsd: 0.5 } }],
  perUser: [{ userId: "ada", aggregate: { requests: 20n, accepted: 2n, rejected: 2n, acceptanceRate: 0.5 } }, { userId: "bob", aggregate: { requests: 10n } }],
};

const answer = (unpricedCalls = 0n, withTab = false) => create(GetDashboardResponseSchema, {
  tab: withTab ? tab : undefined,
  totals: { calls: 1234n, completed: 1200n, failed: 30n, cancelled: 4n, inputTokens: 5_000n, cacheReadTokens: 20_000n, cacheWriteTokens: 1_000n, outputTokens: 2_000n, cacheHitRate: 0.8, costUsd: 0.004, unpricedCalls, meanTtftMs: 412.4 },
  bucketSize: BucketSize.HOUR,
  series: [{ startTime: at("2026-11-30T10:00:00Z"), aggregate: { calls: 3n, inputTokens: 100n, outputTokens: 20n } }],
  perModel: [{ modelId: "claude-x", aggregate: { calls: 1000n, failed: 10n, cacheHitRate: 0.5, costUsd: 12.345 } }],
  perTarget: [{ targetModelId: "m-a", aggregate: { calls: 700n } }, { targetModelId: "m-gone", aggregate: { calls: 1n } }],
  perUser: [{ userId: "bob", aggregate: { calls: 900n } }, { userId: "", aggregate: { calls: 334n } }],
});

function fake(unpriced = 0n, withTab = false) {
  const sent: GetDashboardRequest[] = [];
  serve((r) => {
    r.service(DashboardService, { getDashboard: (req) => { sent.push(req); return answer(unpriced, withTab); } });
    r.service(ModelService, { listModels: () => ({ models: [create(ModelSchema, { id: "m-a", providerName: "OpenAI", settings: { displayName: "Model A" } })] }) });
  });
  return sent;
}

const card = (title: string) => within(screen.getByText(title, { selector: "h2" }).parentElement!);
const span = (r: GetDashboardRequest) => Number(r.endTime!.seconds - r.startTime!.seconds);

describe("DashboardPage", () => {
  it("sums the last 24 hours: calls, cache hit rate, tokens and cost", async () => {
    const sent = fake();
    renderAs("admin", <DashboardPage />);
    expect(await screen.findByText("1,234")).toBeInTheDocument();
    expect(screen.getByText("1200 completed · 30 failed · 4 cancelled")).toBeInTheDocument();
    expect(screen.getByText("80.0%")).toBeInTheDocument();
    expect(screen.getByText("20.0k of 25.0k input tokens from cache")).toBeInTheDocument();
    expect(screen.getByText("28.0k")).toBeInTheDocument(); // every kind of token
    expect(screen.getByText("$0.0040")).toBeInTheDocument();
    expect(screen.getByText("mean TTFT 412 ms")).toBeInTheDocument();
    expect(card("Per model").getByText("$12.35")).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "Tokens over time" })).toBeInTheDocument();
    expect(span(sent[0])).toBe(24 * 3600);
    expect(sent[0].userId).toBe("");
  });

  it("names alias targets by their model and provider, and keeps an unknown one's id", async () => {
    fake();
    renderAs("admin", <DashboardPage />);
    await waitFor(() => expect(screen.getAllByTestId("target-row")).toHaveLength(2));
    const [known, gone] = screen.getAllByTestId("target-row");
    await waitFor(() => expect(known).toHaveTextContent("Model A · OpenAI"));
    expect(gone).toHaveTextContent("m-gone");
  });

  it("filters by the user an administrator picks, in the query string, and by time range", async () => {
    const sent = fake();
    const { user } = renderAs("admin", <DashboardPage />);
    await waitFor(() => expect(screen.getAllByTestId("user-row")).toHaveLength(2));
    const [bob, nobody] = screen.getAllByTestId("user-row");
    expect(within(nobody).getByTitle("made outside a user's turn")).toBeInTheDocument();

    await user.click(nobody); // no user to filter on
    expect(window.location.search).toBe("");
    await user.click(bob);
    await waitFor(() => expect(sent.at(-1)!.userId).toBe("bob"));
    expect(window.location.search).toBe("?user=bob");
    expect(screen.getByRole("textbox", { name: "User filter" })).toHaveValue("bob");

    await user.selectOptions(screen.getByRole("combobox", { name: "Time range" }), "Last 7 days");
    await waitFor(() => expect(span(sent.at(-1)!)).toBe(7 * 24 * 3600));
    expect(sent.at(-1)!.userId).toBe("bob");
  });

  it("shows no Tab tables when the range holds no Tab call", async () => {
    fake();
    renderAs("admin", <DashboardPage />);
    expect(await screen.findByText("1,234")).toBeInTheDocument();
    expect(screen.queryByText("Tab per model")).not.toBeInTheDocument();
    expect(screen.queryByText("Tab per user")).not.toBeInTheDocument();
  });

  it("shows Tab requests, acceptance and latency per model and per user when there are Tab calls", async () => {
    fake(0n, true);
    const { user } = renderAs("admin", <DashboardPage />);
    await waitFor(() => expect(screen.getAllByTestId("tab-model-row")).toHaveLength(1));
    const model = within(screen.getByTestId("tab-model-row"));
    for (const text of ["fim-a", "30", "75.0%", "12", "180 ms", "$0.50"]) expect(model.getByText(text)).toBeInTheDocument();
    const [ada, bob] = screen.getAllByTestId("tab-user-row");
    expect(within(ada).getByText("50.0%")).toBeInTheDocument();
    expect(within(bob).getByText("—")).toBeInTheDocument(); // no fate reported: no rate
    await user.click(within(ada).getByRole("button", { name: "ada" }));
    expect(window.location.search).toBe("?user=ada");
  });

  it("shows a member the Tab figures per model only", async () => {
    fake(0n, true);
    renderAs("member", <DashboardPage />);
    await waitFor(() => expect(screen.getAllByTestId("tab-model-row")).toHaveLength(1));
    expect(screen.queryByText("Tab per user")).not.toBeInTheDocument();
  });

  it("tells an administrator to set prices when calls have none", async () => {
    fake(5n);
    renderAs("admin", <DashboardPage />);
    expect(await screen.findByText("5 calls without a price (set prices in Settings)")).toBeInTheDocument();
  });

  it("shows a member their own figures only: no user filter, no per-user table, no user from the URL", async () => {
    window.history.replaceState(null, "", "/?user=bob");
    const sent = fake(5n);
    renderAs("member", <DashboardPage />);
    expect(await screen.findByText("5 calls without a price (your administrators set prices)")).toBeInTheDocument();
    expect(screen.getByTestId("role-note")).toHaveTextContent("These figures cover your own calls only");
    expect(screen.queryByRole("textbox", { name: "User filter" })).not.toBeInTheDocument();
    expect(screen.queryByText("Per user")).not.toBeInTheDocument();
    expect(sent.every((r) => r.userId === "")).toBe(true);
  });
});
