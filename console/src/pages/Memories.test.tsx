import { describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { MemoryService, type ListMemoriesRequest } from "../gen/control/v1/memory_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { MemoriesPage } from "./Memories";

describe("MemoriesPage", () => {
  it("lists everyone's memories for an administrator, filters by user and deletes one", async () => {
    const asked: ListMemoriesRequest[] = [];
    const deleted: string[] = [];
    let rows = [
      { id: "m1", userId: "ada", title: "Style", knowledge: "Tabs, never spaces." },
      { id: "m2", userId: "bob", title: "", knowledge: "Answer in French." },
    ];
    serve((r) => r.service(MemoryService, {
      listMemories: (req) => { asked.push(req); return { memories: rows.filter((m) => !req.userId || m.userId === req.userId) }; },
      deleteMemory: (req) => { deleted.push(req.id); rows = rows.filter((m) => m.id !== req.id); return {}; },
    }));
    vi.spyOn(window, "confirm").mockReturnValue(true);
    const { user } = renderAs("admin", <MemoriesPage />);
    await waitFor(() => expect(screen.getAllByTestId("memory-row")).toHaveLength(2));
    expect(within(screen.getAllByTestId("memory-row")[0]).getByText("Tabs, never spaces.")).toBeInTheDocument();

    await user.type(screen.getByRole("textbox", { name: "Filter by user" }), "bob");
    await waitFor(() => expect(screen.getAllByTestId("memory-row")).toHaveLength(1));
    expect(asked.at(-1)).toMatchObject({ userId: "bob" });

    await user.click(within(screen.getByTestId("memory-row")).getByRole("button", { name: "Delete" }));
    expect(await screen.findByText("No memories.")).toBeInTheDocument();
    expect(deleted).toEqual(["m2"]);
  });

  it("shows a member their own memories, without the user filter", async () => {
    serve((r) => r.service(MemoryService, {
      listMemories: () => ({ memories: [{ id: "m1", userId: "ada", title: "Style", knowledge: "Tabs." }] }),
    }));
    renderAs("member", <MemoriesPage />);
    expect(await screen.findByText("Tabs.")).toBeInTheDocument();
    expect(screen.queryByRole("textbox", { name: "Filter by user" })).not.toBeInTheDocument();
    expect(screen.queryByRole("columnheader", { name: "User" })).not.toBeInTheDocument();
  });
});
