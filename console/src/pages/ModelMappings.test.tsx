import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { ModelMappingService, type SetModelMappingRequest } from "../gen/control/v1/mapping_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { ModelMappingsCard } from "./ModelMappings";

const targets = [{ id: "m-a", name: "Model A" }, { id: "al-1", name: "fast" }];

describe("ModelMappingsCard", () => {
  it("maps a Cursor model id onto a Keygate model, lists it by name and unmaps it", async () => {
    let rows: { cursorModel: string; target: string }[] = [];
    const set: SetModelMappingRequest[] = [];
    serve((r) => r.service(ModelMappingService, {
      listModelMappings: () => ({ mappings: rows }),
      setModelMapping: (req) => { set.push(req); rows = [...rows, { cursorModel: req.cursorModel, target: req.target }]; return {}; },
      deleteModelMapping: (req) => { rows = rows.filter((m) => m.cursorModel !== req.cursorModel); return {}; },
    }));
    const { user } = renderAs("admin", <ModelMappingsCard admin targets={targets} />);
    expect(await screen.findByText(/No Cursor model is mapped/)).toBeInTheDocument();

    await user.type(screen.getByRole("textbox", { name: "Cursor's model id" }), "gpt-5");
    await user.selectOptions(screen.getByRole("combobox", { name: "Runs on" }), "m-a");
    await user.click(screen.getByRole("button", { name: "Map" }));
    await waitFor(() => expect(screen.getAllByTestId("mapping-row")).toHaveLength(1));
    expect(set).toMatchObject([{ cursorModel: "gpt-5", target: "m-a" }]);
    const row = within(screen.getByTestId("mapping-row"));
    expect(row.getByText("gpt-5")).toBeInTheDocument();
    expect(row.getByText("Model A")).toBeInTheDocument();

    await user.click(row.getByRole("button", { name: "Unmap" }));
    expect(await screen.findByText(/No Cursor model is mapped/)).toBeInTheDocument();
  });

  it("shows a member the mappings without the form", async () => {
    serve((r) => r.service(ModelMappingService, { listModelMappings: () => ({ mappings: [{ cursorModel: "auto", target: "al-1" }] }) }));
    renderAs("member", <ModelMappingsCard admin={false} targets={targets} />);
    expect(await screen.findByText("fast")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Map" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Unmap" })).not.toBeInTheDocument();
  });
});
