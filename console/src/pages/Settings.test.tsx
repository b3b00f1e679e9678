import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { Code, ConnectError } from "@connectrpc/connect";
import { Feature, SettingService, type SetFeatureModelRequest, type UpdateSettingsRequest } from "../gen/control/v1/setting_pb";
import { ModelService } from "../gen/control/v1/model_pb";
import { AliasService } from "../gen/control/v1/alias_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { gate } from "../test/fixtures";
import { SettingsPage } from "./Settings";

const stored = { detailedMode: true, detailedRetentionHours: 48, conversationRetentionDays: 90, prices: [{ modelId: "gpt-x", inputPerMillion: 2.5, outputPerMillion: 10, cacheReadPerMillion: 1.25, cacheWritePerMillion: 0 }] };

const tabModels = [
  { id: "m-fim", enabled: true, settings: { displayName: "Codestral" } },
  { id: "m-chat", enabled: true, settings: { displayName: "GPT Fast" } },
  { id: "m-off", enabled: false, settings: { displayName: "Disabled" } },
];

const none = { modelId: "", source: "", displayName: "", problem: "", default: "" };

function fake({ refuse = "", tab = none, cmdk = { ...none, default: "the first published model" } } = {}) {
  const sent: UpdateSettingsRequest[] = [];
  const tabSent: SetFeatureModelRequest[] = [];
  serve((r) => {
    r.service(SettingService, {
      getSettings: () => ({ settings: stored }),
      updateSettings: (req) => {
        if (refuse) throw new ConnectError(refuse, Code.PermissionDenied);
        sent.push(req); return { settings: req.settings };
      },
      getFeatureModels: () => ({ featureModels: [{ ...tab, feature: Feature.TAB }, { ...cmdk, feature: Feature.CMDK },
        { ...none, feature: Feature.COMMIT, default: "the user's last Agent model, else the first published model" }] }),
      setFeatureModel: (req) => {
        tabSent.push(req);
        const def = req.feature === Feature.TAB ? "" : "the first published model";
        if (req.useConfiguration) {
          return req.feature === Feature.TAB
            ? { featureModel: { feature: req.feature, modelId: "m-chat", displayName: "GPT Fast", source: "configuration" } }
            : { featureModel: { feature: req.feature, default: def } };
        }
        const m = tabModels.find((x) => x.id === req.model);
        return { featureModel: { feature: req.feature, modelId: m?.id ?? "", displayName: m?.settings.displayName ?? "", source: "setting", default: def } };
      },
    });
    r.service(ModelService, { listModels: () => ({ models: tabModels }) });
    r.service(AliasService, { listAliases: () => ({ aliases: [{ id: "a-tab", enabled: true, settings: { displayName: "Tab pool" } }] }) });
  });
  return Object.assign(sent, { tab: tabSent });
}

const retention = () => screen.getByRole("spinbutton", { name: /Keep detailed records for/ });
const priceRows = () => screen.getAllByRole("row").slice(1);

describe("SettingsPage", () => {
  it("shows the stored settings and saves an administrator's edits", async () => {
    const sent = fake();
    const { user } = renderAs("admin", <SettingsPage />);

    expect(await screen.findByRole("checkbox", { name: /Detailed mode/ })).toBeChecked();
    expect(retention()).toHaveValue(48);
    expect(within(priceRows()[0]).getAllByRole("textbox")[0]).toHaveValue("gpt-x");

    await user.click(screen.getByRole("checkbox", { name: /Detailed mode/ }));
    await user.clear(retention());
    await user.type(retention(), "12");
    await user.click(screen.getByRole("button", { name: "Add price" }));
    const added = within(priceRows()[1]);
    await user.type(added.getByRole("textbox"), "claude-y");
    await user.type(added.getAllByRole("spinbutton")[1], "15");
    await user.click(within(priceRows()[0]).getByRole("button", { name: "Remove" }));
    await user.click(screen.getByRole("button", { name: "Save" }));

    expect(await screen.findByText("Saved.")).toBeInTheDocument();
    expect(sent).toHaveLength(1);
    expect(sent[0].settings).toMatchObject({ detailedMode: false, detailedRetentionHours: 12, conversationRetentionDays: 90 });
    expect(sent[0].settings!.prices).toHaveLength(1);
    expect(sent[0].settings!.prices[0]).toMatchObject({ modelId: "claude-y", inputPerMillion: 0, outputPerMillion: 15 });
  });

  it("offers no Save before the settings have loaded, nor when loading failed", async () => {
    const late = gate();
    serve((r) => r.service(SettingService, { getSettings: async () => { await late.opened; throw new ConnectError("store closed", Code.Internal); } }));
    renderAs("admin", <SettingsPage />);
    expect(screen.getByRole("status")).toHaveTextContent("Loading settings…");
    expect(screen.queryByRole("button", { name: "Save" })).not.toBeInTheDocument();

    late.open();
    expect(await screen.findByRole("alert")).toHaveTextContent("store closed");
    expect(screen.queryByRole("button", { name: "Save" })).not.toBeInTheDocument();
    expect(screen.queryByRole("checkbox")).not.toBeInTheDocument();
  });

  it("shows the server's refusal when an administrator lost the role meanwhile", async () => {
    fake({ refuse: "only administrators change settings" });
    const { user } = renderAs("admin", <SettingsPage />);
    await user.click(await screen.findByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("only administrators change settings");
    expect(screen.queryByText("Saved.")).not.toBeInTheDocument();
  });

  it("shows a member the same values read-only", async () => {
    fake();
    renderAs("member", <SettingsPage />);
    expect(await screen.findByRole("checkbox", { name: /Detailed mode/ })).toBeDisabled();
    expect(screen.getByTestId("role-note")).toHaveTextContent("managed by your Keygate administrators");
    expect(retention()).toBeDisabled();
    expect(retention()).toHaveValue(48);
    expect(screen.queryByRole("button", { name: "Save" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Add price" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Remove" })).not.toBeInTheDocument();
  });

  it("chooses the Cursor Tab model among the enabled models and aliases, and can hand the choice back to the configuration", async () => {
    const sent = fake({ tab: none });
    const { user } = renderAs("admin", <SettingsPage />);
    expect(await screen.findByTestId("tab-source")).toHaveTextContent("No Tab model chosen: Cursor's own Tab is used.");
    const select = screen.getByRole("combobox", { name: /Tab model/ });
    await within(select).findByRole("option", { name: "Tab pool (alias)" });
    expect(within(select).queryByRole("option", { name: "Disabled" })).not.toBeInTheDocument();

    await user.selectOptions(select, "m-fim");
    await user.click(screen.getByRole("button", { name: "Save Tab model" }));
    expect(await screen.findByTestId("tab-source")).toHaveTextContent("Cursor Tab runs on Codestral (saved here).");
    expect(sent.tab).toEqual([expect.objectContaining({ feature: Feature.TAB, model: "m-fim", useConfiguration: false })]);
    expect(sent).toHaveLength(0);

    await user.click(screen.getAllByRole("button", { name: "Use the configuration's" })[0]);
    expect(await screen.findByTestId("tab-source")).toHaveTextContent("GPT Fast (from KEYGATE_TAB_MODEL)");
    expect(sent.tab[1]).toMatchObject({ useConfiguration: true });
  });

  it("says why a configured Tab model serves nothing, and shows a member the choice read-only", async () => {
    fake({ tab: { modelId: "", source: "configuration", displayName: "", problem: `no enabled model or alias is named "codestral"`, default: "" } });
    renderAs("member", <SettingsPage />);
    expect(await screen.findByTestId("tab-source")).toHaveTextContent(`Keygate serves no Tab: no enabled model or alias is named "codestral"`);
    expect(screen.getByRole("combobox", { name: /Tab model/ })).toBeDisabled();
    expect(screen.queryByRole("button", { name: "Save Tab model" })).not.toBeInTheDocument();
  });

  it("serves inline edits on the default until a model is chosen, turns them off, and goes back to the default", async () => {
    const sent = fake();
    const { user } = renderAs("admin", <SettingsPage />);
    expect(await screen.findByTestId("cmdk-source")).toHaveTextContent("No inline-edit model chosen: the first published model serves inline edits.");
    expect(screen.getByTestId("commit-source")).toHaveTextContent("the user's last Agent model, else the first published model serves commit messages");
    const select = screen.getByRole("combobox", { name: /Inline-edit model/ });
    await within(select).findByRole("option", { name: "Tab pool (alias)" });
    expect(select).toHaveValue("");

    await user.selectOptions(select, "m-chat");
    await user.click(screen.getByRole("button", { name: "Save Inline-edit model" }));
    expect(await screen.findByTestId("cmdk-source")).toHaveTextContent("Inline edits run on GPT Fast (saved here).");

    await user.selectOptions(select, within(select).getByRole("option", { name: "None: use Cursor's own inline edits" }));
    await user.click(screen.getByRole("button", { name: "Save Inline-edit model" }));
    expect(await screen.findByTestId("cmdk-source")).toHaveTextContent("Inline edits turned off here: Cursor's own inline edits is used.");

    await user.selectOptions(select, "");
    await user.click(screen.getByRole("button", { name: "Save Inline-edit model" }));
    expect(await screen.findByTestId("cmdk-source")).toHaveTextContent("the first published model serves inline edits");
    expect(sent.tab).toEqual([
      expect.objectContaining({ feature: Feature.CMDK, model: "m-chat" }),
      expect.objectContaining({ feature: Feature.CMDK, model: "", useConfiguration: false }),
      expect.objectContaining({ feature: Feature.CMDK, useConfiguration: true }),
    ]);
  });
});
