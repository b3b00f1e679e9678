import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import type { JsonValue } from "@bufbuild/protobuf";
import type { AuditEntry } from "../account";
import { serveJSON } from "../test/http";
import { renderAs } from "../test/render";
import { AuditCard } from "./Audit";

// EntryJSON is an entry as the route sends it: the generated message's
// field names, so that a fixture cannot name a field Keygate does not send.
type EntryJSON = { [K in Exclude<keyof AuditEntry, "$typeName" | "$unknown">]?: JsonValue };

const entry = (seq: number, fields: EntryJSON = {}): EntryJSON => ({
  seq, at: "2026-11-30T10:00:00Z", actorId: "u-ada", actorName: "Ada", role: "admin", action: "model.update", target: `model/m-${seq}`, ...fields,
});

const rows = () => screen.queryAllByTestId("audit-row");

// The Access page's audit log. The page's other card, the gateway tokens
// (Tokens.tsx), has no test here.
describe("AuditCard", () => {
  it("shows only the fields a change changed, before and after", async () => {
    serveJSON({ "GET /auth/audit": () => ({ body: { entries: [
      entry(3, { before: { displayName: "GPT", enabled: true, baseUrl: "https://a" }, after: { displayName: "GPT", enabled: false, baseUrl: "https://b" } }),
      entry(2, { action: "settings.update", before: 24, after: 48 }),
      entry(1, { action: "noop", actorName: undefined }),
    ] } }) });
    renderAs("admin", <AuditCard admin />);
    await waitFor(() => expect(rows()).toHaveLength(3));

    const update = within(rows()[0]);
    expect(update.getByText("Ada")).toBeInTheDocument();
    expect(update.getByText("enabled:").parentElement).toHaveTextContent("enabled: true → false");
    expect(update.getByText("baseUrl:").parentElement).toHaveTextContent("baseUrl: https://a → https://b");
    expect(update.queryByText("displayName:")).not.toBeInTheDocument(); // unchanged
    expect(within(rows()[1]).getByText("value:").parentElement).toHaveTextContent("value: 24 → 48");
    expect(within(rows()[2]).getByText("u-ada")).toBeInTheDocument(); // no name: the id
    expect(within(rows()[2]).getByText("no recorded change")).toBeInTheDocument();
  });

  it("folds a created or deleted object away behind its name", async () => {
    const provider = { name: "Company OpenAI", baseUrl: "https://x", strategy: "round-robin", region: "eu" };
    serveJSON({ "GET /auth/audit": () => ({ body: { entries: [entry(2, { action: "provider.create", after: provider }), entry(1, { action: "provider.delete", before: { DisplayName: "Old", a: 1, b: 2, c: 3 } })] } }) });
    const { user } = renderAs("admin", <AuditCard admin />);
    await waitFor(() => expect(rows()).toHaveLength(2));
    const created = within(rows()[0]).getByText("created “Company OpenAI” (4 fields)");
    expect(within(rows()[1]).getByText("deleted “Old” (4 fields)")).toBeInTheDocument();
    await user.click(created);
    expect(within(rows()[0]).getByText("region:").parentElement).toHaveTextContent("region: eu");
  });

  it("loads older entries from the last one shown, until there are none", async () => {
    const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => entry(from - i));
    const seen = serveJSON({ "GET /auth/audit": (q) => ({ body: { entries: q.get("before") === "51" ? page(50, 2) : q.get("before") ? [] : page(100, 50) } }) });
    const { user } = renderAs("admin", <AuditCard admin />);
    await waitFor(() => expect(rows()).toHaveLength(50));

    await user.click(screen.getByRole("button", { name: "Load older entries" }));
    await waitFor(() => expect(rows()).toHaveLength(52));
    await user.click(screen.getByRole("button", { name: "Load older entries" }));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Load older entries" })).not.toBeInTheDocument());
    expect(seen).toEqual(["GET /auth/audit?limit=50", "GET /auth/audit?limit=50&before=51", "GET /auth/audit?limit=50&before=49"]);
  });

  it("asks nothing for a member, and says who may read the log", async () => {
    const seen = serveJSON({});
    renderAs("member", <AuditCard admin={false} />);
    expect(screen.getByText(/Only administrators can read the audit log/)).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
  });

  it("turns a refusal into what to do", async () => {
    serveJSON({ "GET /auth/audit": () => ({ status: 403, text: "administrators only" }) });
    renderAs("admin", <AuditCard admin />);
    expect(await screen.findByRole("alert")).toHaveTextContent("administrators only: ask an administrator of this Keygate.");
  });
});
