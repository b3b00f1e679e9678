import { describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ModelSchema, ModelService, ProviderKind, ProviderProtocolSchema, type CreateModelRequest, type DiscoverModelsRequest, type UpdateModelRequest } from "../gen/control/v1/model_pb";
import { ProviderSchema, ProviderService } from "../gen/control/v1/provider_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { ModelForm } from "./ModelForm";

const protocols = [
  create(ProviderProtocolSchema, { kind: ProviderKind.ANTHROPIC, name: "anthropic", title: "Anthropic Messages" }),
  create(ProviderProtocolSchema, { kind: ProviderKind.OPENAI_CHAT, name: "openai-chat", title: "OpenAI Chat Completions" }),
];

const pool = create(ProviderSchema, { id: "prov-1", settings: { name: "Company OpenAI", region: "eu", providerKind: ProviderKind.OPENAI_CHAT, baseUrl: "https://eu.example/v1" }, keys: [{ id: "k1" }, { id: "k2" }] });

// fake serves the model and provider services, recording what the form sends.
function fake({ providers = [] as (typeof pool)[], failCreate = false } = {}) {
  const sent = { discover: [] as DiscoverModelsRequest[], create: [] as CreateModelRequest[], update: [] as UpdateModelRequest[] };
  serve((r) => {
    r.service(ProviderService, { listProviders: () => ({ providers }) });
    r.service(ModelService, {
      discoverModels: (req) => { sent.discover.push(req); return { modelIds: ["claude-a", "claude-b"] }; },
      createModel: (req) => {
        if (failCreate) throw new ConnectError("base URL must be https", Code.InvalidArgument);
        sent.create.push(req); return {};
      },
      updateModel: (req) => { sent.update.push(req); return {}; },
    });
  });
  return sent;
}

describe("ModelForm", () => {
  it("does not offer a cloud protocol for a model's own connection: its account is a provider's", () => {
    fake();
    const withCloud = [...protocols, create(ProviderProtocolSchema, { kind: ProviderKind.BEDROCK_CONVERSE, name: "Bedrock Converse",
      title: "AWS Bedrock Converse", cloud: { fields: ["region"], credentialSources: [1] } })];
    renderAs("admin", <ModelForm protocols={withCloud} onDone={() => {}} onCancel={() => {}} />);
    const options = within(screen.getByRole("combobox", { name: "Protocol" })).getAllByRole("option").map((o) => o.textContent);
    expect(options).toEqual(["Anthropic Messages", "OpenAI Chat Completions"]);
    expect(screen.getByText(/add them as a provider on the Providers page/)).toBeTruthy();
  });

  it("creates a model on the first protocol with the discovered model id, limits and key", async () => {
    const sent = fake();
    const onDone = vi.fn();
    const { user } = renderAs("admin", <ModelForm protocols={protocols} onDone={onDone} onCancel={() => {}} />);

    expect(screen.getByRole("combobox", { name: "Protocol" })).toHaveValue(String(ProviderKind.ANTHROPIC));
    const discover = screen.getByRole("button", { name: "Discover models" });
    expect(discover).toBeDisabled(); // nothing to ask without a base URL

    await user.type(screen.getByRole("textbox", { name: "Base URL" }), "https://api.example/v1");
    await user.type(screen.getByLabelText("API key"), "sk-secret");
    await user.click(discover);
    const found = await screen.findByLabelText("Discovered models");
    expect(sent.discover).toHaveLength(1);
    expect(sent.discover[0]).toMatchObject({ providerKind: ProviderKind.ANTHROPIC, baseUrl: "https://api.example/v1", apiKey: "sk-secret", keyFromModelId: "", keyFromProviderId: "" });

    await user.click(within(found).getByRole("button", { name: "claude-b" }));
    expect(screen.getByRole("combobox", { name: "Upstream model id" })).toHaveValue("claude-b");
    await user.type(screen.getByRole("textbox", { name: "Display name" }), "Claude B");
    await user.type(screen.getByRole("spinbutton", { name: "Requests per minute" }), "60");
    await user.click(screen.getByRole("button", { name: "Save" }));

    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    expect(sent.create).toHaveLength(1);
    expect(sent.create[0].apiKey).toBe("sk-secret");
    expect(sent.create[0].enabled).toBe(true);
    expect(sent.create[0].settings).toMatchObject({ providerKind: ProviderKind.ANTHROPIC, baseUrl: "https://api.example/v1", modelId: "claude-b", displayName: "Claude B", requestsPerMinute: 60n, providerId: "" });
  });

  it("keeps the stored key on edit when the key field stays empty", async () => {
    const sent = fake();
    const model = create(ModelSchema, { id: "m-7", hasApiKey: true, apiKeyHint: "sk-…f00", settings: { displayName: "GPT", providerKind: ProviderKind.OPENAI_CHAT, baseUrl: "https://api.example/v1", modelId: "gpt-x" } });
    const onDone = vi.fn();
    const { user } = renderAs("admin", <ModelForm model={model} protocols={protocols} onDone={onDone} onCancel={() => {}} />);

    expect(screen.getByText("Edit GPT")).toBeInTheDocument();
    expect(screen.getByText("Stored: sk-…f00. Leave empty to keep it.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Discover models" }));
    await screen.findByLabelText("Discovered models");
    expect(sent.discover[0]).toMatchObject({ apiKey: "", keyFromModelId: "m-7" }); // the server uses the stored key

    await user.clear(screen.getByRole("textbox", { name: "Display name" }));
    await user.type(screen.getByRole("textbox", { name: "Display name" }), "GPT X");
    await user.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onDone).toHaveBeenCalledOnce());
    expect(sent.create).toHaveLength(0);
    expect(sent.update).toHaveLength(1);
    expect(sent.update[0]).toMatchObject({ id: "m-7", apiKey: "" });
    expect(sent.update[0].settings).toMatchObject({ displayName: "GPT X", modelId: "gpt-x", baseUrl: "https://api.example/v1" });
  });

  it("on a provider of the Providers page hides its own URL and key and discovers with the provider's keys", async () => {
    const sent = fake({ providers: [pool] });
    const { user } = renderAs("admin", <ModelForm protocols={protocols} onDone={() => {}} onCancel={() => {}} />);

    const provider = await screen.findByRole("combobox", { name: "Provider" });
    expect(within(provider).getByRole("option", { name: "Company OpenAI (eu) · 2 keys" })).toBeInTheDocument();
    await user.selectOptions(provider, "prov-1");
    expect(screen.queryByRole("textbox", { name: "Base URL" })).not.toBeInTheDocument();
    expect(screen.queryByLabelText("API key")).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Discover models" })); // enabled without a base URL of its own
    await screen.findByLabelText("Discovered models");
    expect(sent.discover[0]).toMatchObject({ keyFromProviderId: "prov-1", providerKind: ProviderKind.OPENAI_CHAT, baseUrl: "https://eu.example/v1", apiKey: "" });
  });

  it("shows the server's refusal and stays open", async () => {
    fake({ failCreate: true });
    const onDone = vi.fn();
    const { user } = renderAs("admin", <ModelForm protocols={protocols} onDone={onDone} onCancel={() => {}} />);
    await user.type(screen.getByRole("textbox", { name: "Base URL" }), "http://api.example/v1");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("base URL must be https");
    expect(onDone).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Save" })).toBeEnabled();
  });
});
