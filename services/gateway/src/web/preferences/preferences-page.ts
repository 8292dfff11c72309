import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toolNames } from '@quarry/contracts';
import { IdentityAdminError } from '../../identity/admin.js';
import { isAdmin } from '../../identity/member.js';
import { alertLine, csrfField, esc, options, when } from '../people/html.js';
import { memberOf } from '../people/member-of.js';
import { DEPTHS, MEDIA_TYPES, type OrgPreferences, type OrgPreferencesService } from './org-preferences.js';

import type { WebShell } from '../shell/web-shell.js';

const MEDIA_LABELS: Record<string, string> = {
  conversation: 'An answer in the conversation',
  markdown: 'Markdown',
  html: 'HTML',
  word: 'Word document',
  excel: 'Excel workbook',
  powerpoint: 'PowerPoint deck',
};
const DEPTH_LABELS: Record<string, string> = {
  '': 'Not set (the client decides)',
  scan: 'Scan: a quick look at a few sources',
  standard: 'Standard',
  deep: 'Deep: a thorough investigation',
};

type Form = Record<string, string | undefined>;

/**
 * GET and POST /app/preferences — the organization's output preferences and default research
 * depth, as toolNames.getResearchContext returns them to every client. Members read them; admins change
 * them (the form is shown to admins only, and the service refuses anyone else).
 */
export function registerPreferencesPage(
  scope: FastifyInstance,
  shell: WebShell,
  preferences: OrgPreferencesService,
): void {
  function page(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    prefs: OrgPreferences,
    extra: { saved?: boolean; error?: string } = {},
  ) {
    const viewer = shell.viewer(request);
    const admin = isAdmin(memberOf(viewer));
    const disabled = admin ? '' : ' disabled';
    return shell.page(request, reply, status, {
      title: 'Preferences',
      body: `<h1>Preferences</h1>
<p>How ${esc(viewer.org.name)}’s research is delivered: every client reads these with a plan (${toolNames.getResearchContext}).${admin ? '' : ' Only owners and admins can change them.'}</p>
${extra.saved ? alertLine('Saved.', 'notice') : ''}${alertLine(extra.error)}
<form method="post" action="/app/preferences">
${csrfField(viewer.csrf)}
<label for="media-type">Deliverable format</label>
<select id="media-type" name="mediaType"${disabled}>${options(MEDIA_TYPES, prefs.mediaType, MEDIA_LABELS)}</select>
<label for="depth">Default research depth</label>
<select id="depth" name="depth"${disabled}>${options(['', ...DEPTHS], prefs.depth ?? '', DEPTH_LABELS)}</select>
<label for="instructions">Formatting instructions</label>
<textarea id="instructions" name="instructions" rows="5" maxlength="4000"${disabled}>${esc(prefs.instructions)}</textarea>
${admin ? '<button type="submit">Save</button>' : ''}
</form>
<p class="muted">Last changed: ${when(prefs.updatedAt, 'never')}</p>
<ul class="plain">
<li><a href="/app/preferences/tokens">Personal access tokens</a></li>
<li><a href="/app/preferences/apps">Connected apps</a></li>
</ul>`,
    });
  }

  scope.get('/preferences', async (request, reply) => {
    const viewer = shell.viewer(request);
    return page(request, reply, 200, await preferences.get(memberOf(viewer), viewer.user.sessionId));
  });

  scope.post('/preferences', async (request, reply) => {
    const viewer = shell.viewer(request);
    const member = memberOf(viewer);
    const body = (request.body ?? {}) as Form;
    try {
      const saved = await preferences.set(member, viewer.user.sessionId, {
        mediaType: body.mediaType || undefined,
        depth: body.depth || undefined,
        instructions: body.instructions ?? undefined,
      });
      return page(request, reply, 200, saved, { saved: true });
    } catch (error) {
      if (!(error instanceof IdentityAdminError)) throw error;
      const status = error.code === 'PERMISSION_DENIED' ? 403 : 400;
      return page(request, reply, status, await preferences.get(member, viewer.user.sessionId), {
        error: error.message,
      });
    }
  });
}
