import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { create } from "@bufbuild/protobuf";
import { DashboardService, GetCursorCloudResponseSchema, type GetCursorCloudRequest } from "../gen/control/v1/dashboard_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { CursorCloudPage } from "./CursorCloud";

function fake() {
  const sent: GetCursorCloudRequest[] = [];
  serve((r) => {
    r.service(DashboardService, {
      getCursorCloud: (req) => {
        sent.push(req);
        return create(GetCursorCloudResponseSchema, {
          policy: "metadata", meaning: "Only account requests go to Cursor.", servedRoutes: 20, metadataRoutes: 80, codeRoutes: 927,
          rows: [
            { day: "2026-12-07", userId: "max", service: "aiserver.v1.AiService", method: "StreamCpp", decision: "refused", requests: 12n },
            { day: "2026-12-07", userId: "max", service: "aiserver.v1.DashboardService", method: "GetUserPrivacyMode", decision: "passed", requests: 2n, bytesUp: 10n, bytesDown: 2048n },
          ],
        });
      },
    });
  });
  return sent;
}

describe("CursorCloudPage", () => {
  it("shows the policy in force, what it means, and the routes per day with their decision and bytes", async () => {
    const sent = fake();
    renderAs("admin", <CursorCloudPage />);
    expect(await screen.findByText("metadata")).toBeInTheDocument();
    expect(screen.getByTestId("policy-meaning")).toHaveTextContent("Only account requests go to Cursor.");
    await waitFor(() => expect(screen.getAllByTestId("cloud-row")).toHaveLength(2));
    const [cpp, meta] = screen.getAllByTestId("cloud-row");
    expect(within(cpp).getByText("refused")).toBeInTheDocument();
    expect(cpp).toHaveTextContent("aiserver.v1.AiService/StreamCpp");
    expect(meta).toHaveTextContent("2.0 KiB");
    expect(meta).toHaveTextContent("max");
    expect(sent[0].days).toBe(7);
    expect(screen.getByText(/Keygate answers 20 itself/)).toBeInTheDocument();
  });

  it("titles a member's table as their own and leaves out the user column", async () => {
    fake();
    renderAs("member", <CursorCloudPage />);
    expect(await screen.findByText("Your requests to Cursor")).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByTestId("cloud-row")).toHaveLength(2));
    expect(screen.queryByRole("columnheader", { name: "User" })).toBeNull();
  });
});
