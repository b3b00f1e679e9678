import { describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { AliasSchema, AliasService, TargetStrategy, type CreateAliasRequest, type DeleteAliasRequest, type DrainAliasTargetRequest, type UpdateAliasRequest } from "../gen/control/v1/alias_pb";
import { ModelSchema, ModelService } from "../gen/control/v1/model_pb";
import { HealthState } from "../gen/control/v1/provider_pb";
import { ModelMappingService } from "../gen/control/v1/mapping_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { at } from "../test/fixtures";
import { AliasesPage } from "./Aliases";

const models = [
  create(ModelSchema, { id: "m-a", providerName: "OpenAI", settings: { displayName: "Model A" } }),
  create(ModelSchema, { id: "m-b", providerName: "Anthropic", settings: { displayName: "Model B" } }),
];

const fast = create(AliasSchema, {
  id: "al-1", enabled: true,
  settings: { displayName: "fast", groupName: "team", tooltip: "quick answers", strategy: TargetStrategy.ORDERED, firstTokenTimeoutMs: 1500n,
    targets: [{ modelId: "m-a", weight: 1 }, { modelId: "m-b", weight: 1 }, { modelId: "m-c", weight: 1, drained: true }] },
  targets: [
    { target: { modelId: "m-a", weight: 1 }, displayName: "Model A", providerName: "OpenAI", health: { state: HealthState.HEALTHY, failures: 2, lastError: "429 Too Many Requests", lastErrorTime: at("2026-11-30T09:00:00Z") } },
    { target: { modelId: "m-b", weight: 1 }, displayName: "Model B", providerName: "Anthropic", health: { state: HealthState.RESTING, restUntil: at("2026-11-30T11:00:00Z") } },
    { target: { modelId: "m-c", weight: 1, drained: true }, displayName: "Model C", providerName: "Local", health: { state: HealthState.DISABLED } },
  ],
});

function fake({ aliases = [fast], modelList = models, refuse = "" } = {}) {
  const sent = { list: 0, create: [] as CreateAliasRequest[], update: [] as UpdateAliasRequest[], drain: [] as DrainAliasTargetRequest[], del: [] as DeleteAliasRequest[] };
  const refuseOr = <T,>(f: () => T) => { if (refuse) throw new ConnectError(refuse, Code.FailedPrecondition); return f(); };
  serve((r) => {
    r.service(ModelService, { listModels: () => ({ models: modelList }) });
    r.service(ModelMappingService, { listModelMappings: () => ({ mappings: [] }) });
    r.service(AliasService, {
      listAliases: () => { sent.list++; return { aliases }; },
      createAlias: (req) => refuseOr(() => { sent.create.push(req); return {}; }),
      updateAlias: (req) => refuseOr(() => { sent.update.push(req); return {}; }),
      drainAliasTarget: (req) => refuseOr(() => { sent.drain.push(req); return {}; }),
      deleteAlias: (req) => refuseOr(() => { sent.del.push(req); return {}; }),
    });
  });
  return sent;
}

const targetRows = () => screen.getAllByTestId("target-row");

describe("AliasesPage", () => {
  it("creates an alias over the models ticked, in the order ticked, with its routing and timeout", async () => {
    const sent = fake({ aliases: [] });
    const { user } = renderAs("admin", <AliasesPage />);
    await screen.findByText("No aliases yet.");
    await waitFor(() => expect(screen.getByRole("button", { name: "Add alias" })).toBeEnabled());
    await user.click(screen.getByRole("button", { name: "Add alias" }));

    await user.type(screen.getByRole("textbox", { name: "Alias name" }), "smart");
    await user.selectOptions(screen.getByRole("combobox", { name: "Routing" }), String(TargetStrategy.WEIGHTED));
    await user.clear(screen.getByRole("spinbutton", { name: "First-token timeout" }));
    await user.type(screen.getByRole("spinbutton", { name: "First-token timeout" }), "2.5");
    await user.click(screen.getByRole("checkbox", { name: /Model B/ }));
    await user.click(screen.getByRole("checkbox", { name: /Model A/ }));
    await user.click(screen.getByRole("button", { name: "Save alias" }));

    await waitFor(() => expect(sent.create).toHaveLength(1));
    expect(sent.create[0].enabled).toBe(true);
    expect(sent.create[0].settings).toMatchObject({ displayName: "smart", strategy: TargetStrategy.WEIGHTED, firstTokenTimeoutMs: 2500n });
    expect(sent.create[0].settings!.targets.map((t) => [t.modelId, t.weight])).toEqual([["m-b", 1], ["m-a", 1]]);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Save alias" })).not.toBeInTheDocument());
    expect(sent.list).toBe(2); // the list was read again
  });

  it("edits an alias keeping what the form does not show", async () => {
    const sent = fake();
    const { user } = renderAs("admin", <AliasesPage />);
    await user.click(await screen.findByRole("button", { name: "Edit alias" }));
    expect(screen.getByRole("textbox", { name: "Alias name" })).toHaveValue("fast");
    expect(screen.getByRole("spinbutton", { name: "First-token timeout" })).toHaveValue(1.5);
    await user.click(screen.getByRole("checkbox", { name: /Model A/ })); // untick
    await user.click(screen.getByRole("button", { name: "Save alias" }));

    await waitFor(() => expect(sent.update).toHaveLength(1));
    expect(sent.update[0].id).toBe("al-1");
    expect(sent.update[0].settings).toMatchObject({ displayName: "fast", groupName: "team", tooltip: "quick answers", firstTokenTimeoutMs: 1500n });
    expect(sent.update[0].settings!.targets.map((t) => t.modelId)).toEqual(["m-b", "m-c"]);
  });

  it("lists the targets in order with their health, and reorders and drains them", async () => {
    const sent = fake();
    const { user } = renderAs("admin", <AliasesPage />);
    await waitFor(() => expect(targetRows()).toHaveLength(3));
    const [a, b, c] = targetRows().map((row) => within(row));
    expect(a.getByText("serving · 2 recent failures")).toBeInTheDocument();
    expect(a.getByText(/last error .*: 429 Too Many Requests/)).toBeInTheDocument();
    expect(b.getByText(/^resting until /)).toBeInTheDocument();
    expect(c.getByText("drained")).toBeInTheDocument();
    expect(screen.getByText("first token within 1.5 s")).toBeInTheDocument();
    expect(a.getByRole("button", { name: "↑" })).toBeDisabled();
    expect(c.getByRole("button", { name: "↓" })).toBeDisabled();

    await user.click(a.getByRole("button", { name: "↓" }));
    await waitFor(() => expect(sent.update).toHaveLength(1));
    expect(sent.update[0].settings!.targets.map((t) => t.modelId)).toEqual(["m-b", "m-a", "m-c"]);
    expect(sent.update[0].settings!.displayName).toBe("fast");

    await user.click(b.getByRole("button", { name: "Drain" }));
    await user.click(c.getByRole("button", { name: "Undrain" }));
    await waitFor(() => expect(sent.drain).toHaveLength(2));
    expect(sent.drain.map((d) => [d.id, d.modelId, d.drained])).toEqual([["al-1", "m-b", true], ["al-1", "m-c", false]]);
  });

  it("deletes an alias only once confirmed, and shows a refused action's reason", async () => {
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    const sent = fake();
    const { user } = renderAs("admin", <AliasesPage />);
    await user.click(await screen.findByRole("button", { name: "Delete alias" }));
    expect(confirm).toHaveBeenCalledWith("Delete fast?");
    expect(sent.del).toHaveLength(0);

    confirm.mockReturnValue(true);
    await user.click(screen.getByRole("button", { name: "Delete alias" }));
    await waitFor(() => expect(sent.del.map((d) => d.id)).toEqual(["al-1"]));

    fake({ refuse: "a route still uses this alias" });
    await user.click(screen.getByRole("button", { name: "Delete alias" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("a route still uses this alias");
  });

  it("offers no alias without models to route to", async () => {
    fake({ aliases: [], modelList: [] });
    renderAs("admin", <AliasesPage />);
    await screen.findByText("No aliases yet.");
    expect(screen.getByRole("button", { name: "Add alias" })).toBeDisabled();
  });

  it("shows a member the aliases read-only", async () => {
    fake();
    renderAs("member", <AliasesPage />);
    await waitFor(() => expect(targetRows()).toHaveLength(3));
    expect(screen.getByText("in Cursor")).toBeInTheDocument();
    for (const name of ["Add alias", "Edit alias", "Delete alias", "↑", "↓", "Drain", "Undrain"]) {
      expect(screen.queryByRole("button", { name })).not.toBeInTheDocument();
    }
    expect(screen.queryByRole("checkbox")).not.toBeInTheDocument();
    expect(targetRows()[0]).toHaveAttribute("draggable", "false");
  });
});
