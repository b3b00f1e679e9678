import { describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ServiceAccountRole, ServiceAccountService, type CreateServiceAccountRequest } from "../gen/control/v1/serviceaccount_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { ServiceAccountsCard } from "./ServiceAccounts";

describe("ServiceAccountsCard", () => {
  it("creates a read-only service account, shows its key once, and revokes one", async () => {
    const created: CreateServiceAccountRequest[] = [];
    const revoked: string[] = [];
    const future = timestampFromDate(new Date(Date.now() + 86_400_000));
    let rows = [{ id: "tok_1", name: "deploy", role: ServiceAccountRole.ADMIN, hint: "kg_abcd…", createdBy: "root", expireTime: future }];
    serve((r) => r.service(ServiceAccountService, {
      listServiceAccounts: () => ({ serviceAccounts: rows }),
      createServiceAccount: (req) => {
        created.push(req);
        const a = { id: "tok_2", name: req.name, role: req.role, hint: "kg_wxyz…", createdBy: "root", expireTime: future };
        rows = [a, ...rows];
        return { serviceAccount: a, key: "kg_wxyz-secret" };
      },
      revokeServiceAccount: (req) => {
        revoked.push(req.id);
        rows = rows.map((a) => (a.id === req.id ? { ...a, revokeTime: timestampFromDate(new Date()) } : a));
        return { serviceAccount: rows.find((a) => a.id === req.id) };
      },
    }));
    vi.spyOn(window, "confirm").mockReturnValue(true);
    const { user } = renderAs("admin", <ServiceAccountsCard />);
    await waitFor(() => expect(screen.getAllByTestId("service-account-row")).toHaveLength(1));

    await user.type(screen.getByRole("textbox", { name: "Service account name" }), "monitoring");
    await user.click(screen.getByRole("button", { name: "Create service account" }));
    expect(await screen.findByTestId("new-service-key")).toHaveTextContent("monitoring");
    expect(created).toEqual([expect.objectContaining({ name: "monitoring", role: ServiceAccountRole.READ_ONLY, days: 90 })]);
    await waitFor(() => expect(screen.getAllByTestId("service-account-row")).toHaveLength(2));
    expect(within(screen.getAllByTestId("service-account-row")[0]).getByText("read-only")).toBeInTheDocument();

    await user.click(within(screen.getAllByTestId("service-account-row")[1]).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(within(screen.getAllByTestId("service-account-row")[1]).getByText("revoked")).toBeInTheDocument());
    expect(revoked).toEqual(["tok_1"]);
  });
});
