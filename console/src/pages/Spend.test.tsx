import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { SpendService, type GetSpendReportRequest } from "../gen/control/v1/team_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { SpendPage } from "./Spend";
import { spendRange } from "../format";

const rows = [
  { day: "2026-12-01", team: "web", userId: "ada", modelId: "gpt", calls: 3n, inputTokens: 1000n, outputTokens: 50n, costUsd: 1.5 },
  { day: "2026-12-01", team: "ml", userId: "bob", modelId: "claude", calls: 1n, inputTokens: 10n, outputTokens: 5n, costUsd: 0.25 },
];

describe("SpendPage", () => {
  it("shows an administrator every row with the total, filters by team, and asks for CSV on export", async () => {
    const asked: GetSpendReportRequest[] = [];
    serve((r) => r.service(SpendService, {
      getSpendReport: (req) => {
        asked.push(req);
        const kept = rows.filter((x) => !req.team || x.team === req.team);
        return { rows: kept, totalCostUsd: kept.reduce((s, x) => s + x.costUsd, 0), csv: req.csv ? "day,team\n" : "" };
      },
    }));
    const { user } = renderAs("admin", <SpendPage />);
    await waitFor(() => expect(screen.getAllByTestId("spend-row")).toHaveLength(2));
    expect(screen.getByTestId("spend-total")).toHaveTextContent("$1.75");

    await user.type(screen.getByRole("textbox", { name: "Filter by team" }), "ml");
    await waitFor(() => expect(screen.getAllByTestId("spend-row")).toHaveLength(1));
    expect(asked.at(-1)).toMatchObject({ team: "ml" });

    URL.createObjectURL = () => "blob:x";
    URL.revokeObjectURL = () => {};
    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    await waitFor(() => expect(asked.at(-1)).toMatchObject({ csv: true, team: "ml" }));
  });

  it("shows a member their own spend without the team and user filters", async () => {
    const asked: GetSpendReportRequest[] = [];
    serve((r) => r.service(SpendService, { getSpendReport: (req) => { asked.push(req); return { rows: [rows[1]], totalCostUsd: 0.25 }; } }));
    renderAs("member", <SpendPage />);
    await waitFor(() => expect(screen.getAllByTestId("spend-row")).toHaveLength(1));
    expect(screen.queryByRole("textbox", { name: "Filter by team" })).not.toBeInTheDocument();
    expect(asked[0]).toMatchObject({ team: "", userId: "" });
  });

  it("covers whole UTC days from the first date to the end of the last", () => {
    const r = spendRange("2026-12-01", "2026-12-02");
    expect(timestampDate(r.startTime).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(timestampDate(r.endTime).toISOString()).toBe("2026-12-03T00:00:00.000Z");
  });
});
