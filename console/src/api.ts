// One Connect transport for every control service, on the origin that
// served the console (Keygate itself, or the Vite dev proxy).
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ModelService } from "./gen/control/v1/model_pb";
import { CallService } from "./gen/control/v1/call_pb";
import { DashboardService } from "./gen/control/v1/dashboard_pb";
import { SettingService } from "./gen/control/v1/setting_pb";
import { ConversationService } from "./gen/control/v1/conversation_pb";
import { SetupService } from "./gen/control/v1/setup_pb";
import { ProviderService } from "./gen/control/v1/provider_pb";
import { AliasService } from "./gen/control/v1/alias_pb";
import { MemoryService } from "./gen/control/v1/memory_pb";
import { ModelMappingService } from "./gen/control/v1/mapping_pb";
import { SpendService, TeamService } from "./gen/control/v1/team_pb";
import { ServiceAccountService } from "./gen/control/v1/serviceaccount_pb";
import { BudgetService } from "./gen/control/v1/budget_pb";

const transport = createConnectTransport({ baseUrl: window.location.origin });

export const models = createClient(ModelService, transport);
export const calls = createClient(CallService, transport);
export const dashboard = createClient(DashboardService, transport);
export const settings = createClient(SettingService, transport);
export const conversations = createClient(ConversationService, transport);
export const setup = createClient(SetupService, transport);
export const providers = createClient(ProviderService, transport);
export const aliases = createClient(AliasService, transport);
export const memories = createClient(MemoryService, transport);
export const mappings = createClient(ModelMappingService, transport);
export const teams = createClient(TeamService, transport);
export const spend = createClient(SpendService, transport);
export const serviceAccounts = createClient(ServiceAccountService, transport);
export const budgets = createClient(BudgetService, transport);

// describe turns an error into a sentence that says what to do. The server
// already phrases its messages that way; transport failures get advice here.
export function describe(err: unknown): string {
  const e = ConnectError.from(err);
  switch (e.code) {
    case Code.Unavailable:
      return e.rawMessage.startsWith("the provider") ? e.rawMessage : `Keygate is not reachable: check that it is running. (${e.rawMessage})`;
    case Code.Unimplemented:
      return "This Keygate does not offer this yet (the store behind it is missing); upgrade Keygate.";
    default:
      return e.rawMessage;
  }
}
