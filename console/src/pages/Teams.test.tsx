import { describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { TeamService, type PutTeamRequest } from "../gen/control/v1/team_pb";
import { ModelService } from "../gen/control/v1/model_pb";
import { AliasService } from "../gen/control/v1/alias_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { TeamsPage } from "./Teams";

describe("TeamsPage", () => {
  it("lets a member see their teams and choose the one they are charged to, without everyone's list", async () => {
    const chosen: string[] = [];
    let choice = "";
    serve((r) => r.service(TeamService, {
      getMyTeams: () => ({
        teams: [{ name: "web", restricted: true, models: ["m-fast"] }, { name: "ml" }],
        charged: choice || "web", choice,
      }),
      chooseTeam: (req) => { chosen.push(req.name); choice = req.name; return { charged: req.name }; },
    }));
    const { user } = renderAs("member", <TeamsPage />);
    const mine = await screen.findByTestId("my-teams");
    expect(within(mine).getByText("models: m-fast")).toBeInTheDocument();
    await user.selectOptions(screen.getByRole("combobox", { name: "Charge my use to" }), "ml");
    await waitFor(() => expect(chosen).toEqual(["ml"]));
    await waitFor(() => expect(within(screen.getByTestId("my-teams")).getByText("ml").parentElement).toHaveTextContent("charged"));
    expect(screen.queryByText("All teams")).not.toBeInTheDocument();
  });

  it("shows an administrator every team with its members, and marks a seen group as a restricted team", async () => {
    const put: PutTeamRequest[] = [];
    serve((r) => {
      r.service(TeamService, {
        getMyTeams: () => ({}),
        listTeams: () => ({
          teams: [{ name: "web", restricted: true, models: ["m-fast"], members: [{ userId: "ada", charged: true }, { userId: "bob" }] }],
          otherGroups: ["ml-research"],
        }),
        putTeam: (req) => { put.push(req); return { team: { name: req.name, restricted: req.restricted, models: req.models } }; },
      });
      r.service(ModelService, { listModels: () => ({ models: [{ id: "m-fast", settings: { displayName: "Fast" } }, { id: "m-big", settings: { displayName: "Big" } }] }) });
      r.service(AliasService, { listAliases: () => ({ aliases: [{ id: "a-any", settings: { displayName: "Any" } }] }) });
    });
    vi.spyOn(window, "confirm").mockReturnValue(true);
    const { user } = renderAs("admin", <TeamsPage />);
    const row = await screen.findByTestId("team-row");
    await waitFor(() => expect(within(row).getByText("Fast")).toBeInTheDocument());
    expect(within(row).getByText("(charged elsewhere)")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "ml-research" }));
    const form = screen.getByTestId("team-form");
    expect(within(form).getByRole("textbox", { name: "Group name" })).toHaveValue("ml-research");
    await user.click(within(form).getByRole("checkbox", { name: "Only the models below" }));
    await user.click(within(form).getByRole("checkbox", { name: "Big" }));
    await user.click(within(form).getByRole("checkbox", { name: "Any" }));
    await user.click(within(form).getByRole("button", { name: "Save team" }));
    await waitFor(() => expect(put).toHaveLength(1));
    expect(put[0]).toMatchObject({ name: "ml-research", restricted: true, models: ["m-big", "a-any"] });
  });
});
