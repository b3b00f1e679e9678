import { describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { ConversationService, type ListConversationsRequest } from "../gen/control/v1/conversation_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { ConversationsPage } from "./Conversations";

const checkpoints = [
  { id: "cp-root", parentId: "", length: 0n },
  { id: "cp-a", parentId: "cp-root", length: 2n },
  { id: "cp-b", parentId: "cp-a", length: 4n },
  { id: "cp-c", parentId: "cp-a", length: 4n },
];

describe("ConversationsPage", () => {
  it("draws the branch tree and shows the messages of the head, then of the checkpoint picked", async () => {
    const asked: string[] = [];
    serve((r) => r.service(ConversationService, {
      getBranchTree: (req) => ({ checkpoints: req.conversationId === "conv-1" ? checkpoints : [], headCheckpointId: "cp-c" }),
      getCheckpointMessages: (req) => { asked.push(req.checkpointId); return { messages: [{ id: `m-${req.checkpointId}`, role: "user", text: `text of ${req.checkpointId}` }] }; },
    }));
    const { user } = renderAs("admin", <ConversationsPage conversationId="conv-1" />);

    const tree = within(await screen.findByTestId("branch-tree"));
    const node = (id: string) => tree.getByText(id).closest("button")!;
    expect(node("cp-a")).toHaveTextContent("2 branches");
    expect(node("cp-c")).toHaveTextContent("head");
    expect(node("cp-b")).not.toHaveTextContent("head");
    expect(node("cp-b").style.paddingLeft).toBe("16px"); // one level in: a branch of cp-a
    expect(await screen.findByText("text of cp-c")).toBeInTheDocument();

    await user.click(node("cp-b"));
    expect(await screen.findByText("text of cp-b")).toBeInTheDocument();
    expect(asked).toEqual(["cp-c", "cp-b"]);
    expect(screen.getByRole("link", { name: "Calls of this conversation" })).toHaveAttribute("href", "/calls?conversation=conv-1");
  });

  it("deletes the conversation after the user confirms", async () => {
    const deleted: string[] = [];
    serve((r) => r.service(ConversationService, {
      getBranchTree: () => ({ checkpoints, headCheckpointId: "cp-c" }),
      getCheckpointMessages: () => ({ messages: [] }),
      deleteConversation: (req) => { deleted.push(req.conversationId); return {}; },
    }));
    const confirm = vi.spyOn(window, "confirm").mockReturnValueOnce(false).mockReturnValueOnce(true);
    const { user } = renderAs("member", <ConversationsPage conversationId="conv-1" />);
    const button = await screen.findByRole("button", { name: "Delete conversation" });
    await user.click(button);
    expect(deleted).toEqual([]);
    await user.click(button);
    await waitFor(() => expect(deleted).toEqual(["conv-1"]));
    expect(confirm.mock.calls[0][0]).toContain("call records stay");
    confirm.mockRestore();
  });

  it("searches, keeping the search in the query string, and loads more", async () => {
    const sent: ListConversationsRequest[] = [];
    serve((r) => r.service(ConversationService, {
      listConversations: (req) => {
        sent.push(req);
        if (req.pageToken === "p2") return { conversations: [{ id: "conv-3", title: "third" }] };
        if (req.search === "nothing") return { conversations: [] };
        return { conversations: [{ id: "conv-1", title: "Fix the login", userId: "bob", modelName: "Claude", turns: 3 }, { id: "conv-2" }], nextPageToken: "p2" };
      },
    }));
    const { user } = renderAs("admin", <ConversationsPage />);
    await waitFor(() => expect(screen.getAllByTestId("conversation-row")).toHaveLength(2));
    const [first, untitled] = screen.getAllByTestId("conversation-row").map((row) => within(row));
    expect(first.getByRole("link", { name: "Fix the login" })).toHaveAttribute("href", "/conversations/conv-1");
    expect(untitled.getByRole("link", { name: "conv-2" })).toBeInTheDocument(); // no title: the id
    expect(untitled.getByTestId("conversation-user")).toHaveTextContent("–");

    await user.click(screen.getByRole("button", { name: "Load more" }));
    await waitFor(() => expect(screen.getAllByTestId("conversation-row")).toHaveLength(3));
    expect(screen.queryByRole("button", { name: "Load more" })).not.toBeInTheDocument();

    await user.type(screen.getByRole("textbox", { name: "Search conversations" }), "nothing");
    expect(await screen.findByText("No conversations match.")).toBeInTheDocument();
    expect(window.location.search).toBe("?q=nothing");
    expect(sent.at(-1)).toMatchObject({ search: "nothing", pageToken: "" });
  });
});
