import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdentityAdminError } from '../../identity/admin.js';
import { completeFirstRun, needsFirstRun } from '../../identity/first-run.js';
import { MIN_PASSWORD_LENGTH } from '../../oauth/passwords.js';
import { anonymousForms } from '../people/anonymous-form.js';
import { alertLine, csrfField, esc } from '../people/html.js';
import { REFUSED } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';

type Form = Record<string, string | undefined>;

/**
 * GET and POST /app/setup — first-run setup: the first organization and its owner, with a
 * password. It exists only while Quarry has no organization (then it is the app's 404 page);
 * success signs the owner in and opens the connect page.
 */
export function registerSetupPage(scope: FastifyInstance, shell: WebShell): void {
  const forms = anonymousForms(shell, 'setup', '/app/setup');

  const form = (request: FastifyRequest, reply: FastifyReply, status: number, values: Form = {}, error?: string) =>
    shell.page(request, reply, status, {
      title: 'Set up Quarry',
      body: `<h1>Set up Quarry</h1>
<p>Create your organization and its first administrator. You can invite everyone else afterwards.</p>
${alertLine(error)}
<form method="post" action="/app/setup">
${csrfField(forms.issue(reply))}
<label for="org-name">Organization name</label>
<input id="org-name" name="orgName" type="text" required maxlength="200" value="${esc(values.orgName)}">
<label for="org-slug">Short name (used in links)</label>
<input id="org-slug" name="orgSlug" type="text" required pattern="[a-z0-9]([a-z0-9\\-]{0,61}[a-z0-9])?" aria-describedby="slug-help" value="${esc(values.orgSlug)}">
<p id="slug-help" class="muted">Lowercase letters, digits and inner hyphens, e.g. acme-research.</p>
<label for="name">Your name</label>
<input id="name" name="name" type="text" autocomplete="name" value="${esc(values.name)}">
<label for="email">Your email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(values.email)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-help">
<p id="password-help" class="muted">At least ${MIN_PASSWORD_LENGTH} characters.</p>
<button type="submit">Create the organization</button>
</form>`,
    });

  scope.get('/setup', { config: { anonymous: true } }, async (request, reply) =>
    (await needsFirstRun(shell.db)) ? form(request, reply, 200) : shell.notFound(request, reply),
  );

  scope.post('/setup', { config: { anonymous: true } }, async (request, reply) => {
    if (!forms.accepts(request)) return shell.message(request, reply, 403, REFUSED.title, REFUSED.message);
    const body = (request.body ?? {}) as Form;
    try {
      const done = await completeFirstRun(shell.db, {
        orgSlug: (body.orgSlug ?? '').trim(),
        orgName: body.orgName ?? '',
        email: body.email ?? '',
        name: body.name ?? '',
        password: body.password ?? '',
        ip: request.ip,
      });
      reply.header('set-cookie', shell.sessions.cookieFor(done.userId));
      return reply.redirect('/app/connect', 303);
    } catch (error) {
      if (!(error instanceof IdentityAdminError)) throw error;
      if (error.code === 'ALREADY_EXISTS' && !(await needsFirstRun(shell.db))) return shell.notFound(request, reply);
      return form(request, reply, 400, { ...body, password: undefined }, error.message);
    }
  });
}
