import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { SetupService } from "../gen/control/v1/setup_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { SetupPage } from "./Setup";

describe("SetupPage", () => {
  it("shows the coding agents' settings with this console's origin as Keygate's address", async () => {
    serve((r) => r.service(SetupService, {
      getCursorSetup: () => ({
        proxyUrl: "http://127.0.0.1:7879",
        codingAgents: [{ name: "Codex CLI", command: "keygate setup codex --url {{ORIGIN}} --write", settings: 'base_url = "{{ORIGIN}}/v1"' }],
      }),
    }));
    renderAs("member", <SetupPage />);
    const agents = await waitFor(() => screen.getByTestId("coding-agents"));
    expect(agents).toHaveTextContent(`keygate setup codex --url ${window.location.origin} --write`);
    expect(agents).toHaveTextContent(`base_url = "${window.location.origin}/v1"`);
    expect(agents).not.toHaveTextContent("{{ORIGIN}}");
  });
});
