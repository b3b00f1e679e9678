import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import { Code, ConnectError } from "@connectrpc/connect";
import { SettingService, type UpdateSettingsRequest } from "../gen/control/v1/setting_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { gate } from "../test/fixtures";
import { SettingsPage } from "./Settings";

const stored = { detailedMode: true, detailedRetentionHours: 48, prices: [{ modelId: "gpt-x", inputPerMillion: 2.5, outputPerMillion: 10, cacheReadPerMillion: 1.25, cacheWritePerMillion: 0 }] };

function fake({ refuse = "" } = {}) {
  const sent: UpdateSettingsRequest[] = [];
  serve((r) => r.service(SettingService, {
    getSettings: () => ({ settings: stored }),
    updateSettings: (req) => {
      if (refuse) throw new ConnectError(refuse, Code.PermissionDenied);
      sent.push(req); return { settings: req.settings };
    },
  }));
  return sent;
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
    expect(sent[0].settings).toMatchObject({ detailedMode: false, detailedRetentionHours: 12 });
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
});
