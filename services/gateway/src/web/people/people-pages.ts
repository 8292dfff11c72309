import type { FastifyInstance } from 'fastify';
import { registerAdminHome } from '../admin/admin-home.js';
import { type InvitationMailer, registerInvitationsPage } from '../admin/invitations-page.js';
import { registerLogPages } from '../admin/log-pages.js';
import { registerMembersPage } from '../admin/members-page.js';
import { registerOAuthClientsPage } from '../admin/oauth-clients-page.js';
import { registerServiceAccountsPage } from '../admin/service-accounts-page.js';
import { registerUsagePage } from '../admin/usage-page.js';
import { registerConnectPage } from '../onboarding/connect-page.js';
import { registerInvitationPage } from '../onboarding/invitation-page.js';
import { registerSetupPage } from '../onboarding/setup-page.js';
import { type OperationsSource, registerOperationsPage } from '../operations/operations-page.js';
import { registerAppsPage } from '../preferences/apps-page.js';
import type { OrgPreferencesService } from '../preferences/org-preferences.js';
import { registerPreferencesPage } from '../preferences/preferences-page.js';
import { registerTokensPage } from '../preferences/tokens-page.js';
import type { NavItem } from '../shell/layout.js';
import type { WebShell } from '../shell/web-shell.js';

export interface PeoplePagesOptions {
  /** The MCP endpoint clients connect to (the public URL's /mcp). */
  mcpUrl: string;
  /** The organization's output preferences, kept by the plan engine; no preferences page without it. */
  preferences?: OrgPreferencesService;
  /** Emails invitation links when SMTP is configured; otherwise only the admin sees the link. */
  mailer?: InvitationMailer;
  /** The operations page's sources; no operations page without them. */
  operations?: OperationsSource;
}

/** The people's places in the app's navigation (admin ones shown to admins and owners only). */
export const PEOPLE_NAV: readonly NavItem[] = [
  { href: '/app/connect', label: 'Connect' },
  { href: '/app/preferences', label: 'Preferences' },
  { href: '/app/admin', label: 'Admin', admins: true },
];

/**
 * The onboarding, preferences, admin and operations pages (docs/adr/0048-web-app-stack.md), in
 * the app's /app scope: every action goes through the identity services (the same code as the
 * `quarry` CLI, run in the organization's transaction) or the plan engine's rpcs, which check
 * members against admins themselves.
 */
export function registerPeoplePages(scope: FastifyInstance, shell: WebShell, options: PeoplePagesOptions): void {
  registerSetupPage(scope, shell);
  registerInvitationPage(scope, shell);
  registerConnectPage(scope, shell, options.mcpUrl);
  registerInvitationsPage(scope, shell, options.mailer);
  if (options.preferences) registerPreferencesPage(scope, shell, options.preferences);
  registerTokensPage(scope, shell);
  registerAppsPage(scope, shell);
  registerAdminHome(scope, shell, options.operations?.operatorOrg);
  registerMembersPage(scope, shell);
  registerServiceAccountsPage(scope, shell);
  registerOAuthClientsPage(scope, shell);
  registerLogPages(scope, shell);
  registerUsagePage(scope, shell);
  if (options.operations) registerOperationsPage(scope, shell, options.operations);
}
