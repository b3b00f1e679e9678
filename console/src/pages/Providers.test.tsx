import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { create } from "@bufbuild/protobuf";
import { CredentialSource, ModelService, ProviderKind, ProviderProtocolSchema } from "../gen/control/v1/model_pb";
import { ProviderService, type CreateProviderRequest } from "../gen/control/v1/provider_pb";
import { serve } from "../test/transport";
import { renderAs } from "../test/render";
import { ProvidersPage } from "./Providers";

const protocols = [
  create(ProviderProtocolSchema, { kind: ProviderKind.OPENAI_CHAT, name: "OpenAI Chat", title: "OpenAI Chat Completions" }),
  create(ProviderProtocolSchema, {
    kind: ProviderKind.GEMINI, name: "Bedrock Converse", title: "AWS Bedrock (Converse)",
    cloud: {
      fields: ["region", "profile", "role_arn", "web_identity_token_file"],
      credentialSources: [CredentialSource.KEYS, CredentialSource.PROFILE, CredentialSource.WEB_IDENTITY, CredentialSource.INSTANCE_ROLE],
      keyFormat: "ACCESS_KEY_ID:SECRET_ACCESS_KEY", baseUrlTemplate: "https://bedrock-runtime.{region}.amazonaws.com",
    },
  }),
];

function fake() {
  const created: CreateProviderRequest[] = [];
  serve((r) => {
    r.service(ModelService, { listModels: () => ({ models: [], protocols }) });
    r.service(ProviderService, {
      listProviders: () => ({ providers: [] }),
      createProvider: (req) => { created.push(req); return {}; },
    });
  });
  return created;
}

describe("the provider form", () => {
  it("shows a cloud protocol's declared settings and no key field for an ambient source", async () => {
    const created = fake();
    const { user } = renderAs("admin", <ProvidersPage />);
    await user.click(await screen.findByRole("button", { name: "Add provider" }));
    expect(screen.queryByLabelText("Credential source")).toBeNull();
    await user.selectOptions(screen.getByLabelText("Provider protocol"), String(ProviderKind.GEMINI));
    expect(screen.getByLabelText("Provider base URL")).toHaveProperty("value", "https://bedrock-runtime.us-east-1.amazonaws.com");
    await user.type(screen.getByLabelText("Cloud region"), "eu-west-1");
    expect(screen.getByLabelText("Provider base URL")).toHaveProperty("value", "https://bedrock-runtime.eu-west-1.amazonaws.com");
    expect(screen.getByLabelText("Provider API key")).toBeTruthy();
    expect(screen.queryByLabelText("Role ARN")).toBeNull();
    await user.selectOptions(screen.getByLabelText("Credential source"), String(CredentialSource.WEB_IDENTITY));
    expect(screen.queryByLabelText("Provider API key")).toBeNull();
    await user.type(screen.getByLabelText("Role ARN"), "arn:aws:iam::1:role/k");
    await user.type(screen.getByLabelText("Web identity token file"), "/var/run/token");
    await user.click(screen.getByRole("button", { name: "Save provider" }));
    await waitFor(() => expect(created).toHaveLength(1));
    expect(created[0].keys).toHaveLength(0);
    expect(created[0].settings?.cloud?.region).toBe("eu-west-1");
    expect(created[0].settings?.cloud?.credentialSource).toBe(CredentialSource.WEB_IDENTITY);
    expect(created[0].settings?.cloud?.roleArn).toBe("arn:aws:iam::1:role/k");
  });
});
