import type { Migration } from 'kysely';
import * as createIdentity from './identity/2026_11_21_2200_create_identity.js';
import * as oauth from './identity/2026_11_25_2100_oauth.js';
import * as toolAllowlists from './identity/2026_11_25_2230_tool_allowlists.js';
import * as authEventsInsertOnly from './identity/2026_11_25_2300_auth_events_insert_only.js';
import * as serviceAccounts from './identity/2026_11_26_0100_service_accounts.js';
import * as invitations from './identity/2026_11_28_1800_invitations.js';
import * as createToolCallLog from './gateway/2026_11_21_2200_create_tool_call_log.js';
import * as toolCallLogInputRequired from './gateway/2026_11_22_0300_tool_call_log_input_required.js';
import * as toolCallLogInsertOnly from './gateway/2026_11_25_2130_tool_call_log_insert_only.js';
import * as mcpTasks from './gateway/2026_11_26_0100_mcp_tasks.js';
import * as toolCallLogByToken from './gateway/2026_11_28_1800_tool_call_log_by_token.js';
import * as callQuotas from './gateway/2026_11_28_2140_call_quotas.js';

/**
 * The gateway owns two schemas: `identity` (organizations, users, memberships, tokens) and
 * `gateway` (the MCP tool-call log, insert-only; MCP tasks; call-rate quotas and their counters). Names are timestamps so order is explicit and stable.
 */
export const gatewaySchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  {
    schema: 'identity',
    migrations: {
      '2026_11_21_2200_create_identity': createIdentity,
      '2026_11_25_2100_oauth': oauth,
      '2026_11_25_2230_tool_allowlists': toolAllowlists,
      '2026_11_25_2300_auth_events_insert_only': authEventsInsertOnly,
      '2026_11_26_0100_service_accounts': serviceAccounts,
      '2026_11_28_1800_invitations': invitations,
    },
  },
  {
    schema: 'gateway',
    migrations: {
      '2026_11_21_2200_create_tool_call_log': createToolCallLog,
      '2026_11_22_0300_tool_call_log_input_required': toolCallLogInputRequired,
      '2026_11_25_2130_tool_call_log_insert_only': toolCallLogInsertOnly,
      '2026_11_26_0100_mcp_tasks': mcpTasks,
      '2026_11_28_1800_tool_call_log_by_token': toolCallLogByToken,
      '2026_11_28_2140_call_quotas': callQuotas,
    },
  },
];
