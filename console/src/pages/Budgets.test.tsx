import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { BudgetScopeKind, BudgetService, type BudgetLimitsSchema, type SetBudgetLimitsRequest } from "../gen/control/v1/budget_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { BudgetsPage } from "./Budgets";

const standing = {
  userId: "ada", limits: { tokensPerDay: 1000n, costPerMonthUsd: 20 }, from: { kind: BudgetScopeKind.USER, id: "ada" },
  usage: { tokensToday: 850n, costThisMonthUsd: 3.5 }, team: "platform", teamLimits: { tokensPerDay: 5000n }, teamUsage: { tokensToday: 2100n },
};

describe("BudgetsPage", () => {
  it("shows an administrator the limits, saves one for a team, removes one, and sets the webhook without showing it back", async () => {
    const set: SetBudgetLimitsRequest[] = [];
    const hooks: string[] = [];
    let rows: MessageInitShape<typeof BudgetLimitsSchema>[] = [{ scope: { kind: BudgetScopeKind.DEFAULT, id: "" }, limits: { tokensPerDay: 2000000n, costPerMonthUsd: 200 } }];
    let configured = false;
    serve((r) => r.service(BudgetService, {
      getBudgetStanding: () => standing,
      listBudgetLimits: () => ({ limits: rows }),
      setBudgetLimits: (req) => { set.push(req); rows = [...rows, { scope: req.scope, limits: req.limits }]; return { limits: { scope: req.scope, limits: req.limits } }; },
      deleteBudgetLimits: (req) => { rows = rows.filter((l) => l.scope?.id !== req.scope?.id || l.scope?.kind !== req.scope?.kind); return {}; },
      getBudgetAlerts: () => ({ webhookConfigured: configured, webhookHost: configured ? "hooks.slack.com" : "" }),
      setBudgetAlerts: (req) => { hooks.push(req.webhookUrl); configured = req.webhookUrl !== ""; return {}; },
    }));
    const { user } = renderAs("admin", <BudgetsPage />);
    await waitFor(() => expect(screen.getAllByTestId("limit-row")).toHaveLength(1));
    expect(within(screen.getAllByTestId("limit-row")[0]).getByText("2,000,000")).toBeInTheDocument();
    expect(screen.getByText("Team platform")).toBeInTheDocument();
    expect(screen.getByText(/Tokens today: 850 of 1,000/)).toBeInTheDocument();

    await user.selectOptions(screen.getByRole("combobox", { name: "Applies to" }), String(BudgetScopeKind.TEAM));
    await user.type(screen.getByRole("textbox", { name: "Scope id" }), "platform");
    await user.type(screen.getByRole("textbox", { name: "Tokens per day" }), "5000");
    await user.type(screen.getByRole("textbox", { name: "Cost per month (USD)" }), "12.5");
    await user.click(screen.getByRole("button", { name: "Save limits" }));
    await waitFor(() => expect(screen.getAllByTestId("limit-row")).toHaveLength(2));
    expect(set[0]).toMatchObject({ scope: { kind: BudgetScopeKind.TEAM, id: "platform" }, limits: { tokensPerDay: 5000n, costPerMonthUsd: 12.5 } });

    await user.click(within(screen.getAllByTestId("limit-row")[1]).getByRole("button", { name: "Remove" }));
    await waitFor(() => expect(screen.getAllByTestId("limit-row")).toHaveLength(1));

    expect(screen.getByTestId("webhook-status")).toHaveTextContent("No webhook");
    const secret = "https://hooks.slack.com/services/T0/B0/secret-token";
    await user.type(screen.getByLabelText("Webhook URL"), secret);
    await user.click(screen.getByRole("button", { name: "Save webhook" }));
    await waitFor(() => expect(screen.getByTestId("webhook-status")).toHaveTextContent("hooks.slack.com"));
    expect(hooks).toEqual([secret]);
    expect(screen.getByLabelText("Webhook URL")).toHaveValue("");
    expect(document.body.textContent).not.toContain("secret-token");
  });

  it("shows a member their own budget only, without the limits and alerts", async () => {
    serve((r) => r.service(BudgetService, { getBudgetStanding: () => standing }));
    renderAs("member", <BudgetsPage />);
    expect(await screen.findByText(/Tokens today: 850 of 1,000/)).toBeInTheDocument();
    expect(screen.getByText(/Tokens today: 2,100 of 5,000/)).toBeInTheDocument();
    expect(screen.queryByText("Limits")).not.toBeInTheDocument();
    expect(screen.queryByLabelText("Webhook URL")).not.toBeInTheDocument();
  });
});
