import type { FastifyInstance } from 'fastify';
import { copyable, esc } from '../people/html.js';
import type { WebShell } from '../shell/web-shell.js';
import { clientInstructions } from './client-instructions.js';

/**
 * GET /app/connect — "connect your client": this Quarry's live MCP URL and, for each client, the
 * exact steps, the values to copy and its install link. Every member may open it.
 */
export function registerConnectPage(scope: FastifyInstance, shell: WebShell, mcpUrl: string): void {
  scope.get('/connect', async (request, reply) => {
    const sections = clientInstructions(mcpUrl)
      .map(
        (client) => `<section aria-labelledby="${client.id}">
<h2 id="${client.id}">${esc(client.name)}</h2>
<ol>${client.steps.map((step) => `<li>${esc(step)}</li>`).join('')}</ol>
${client.installLink ? `<p><a class="button" href="${esc(client.installLink.href)}">${esc(client.installLink.label)}</a></p>` : ''}
${client.copy.map((c, i) => copyable(`${client.id}-${i}`, `${client.name}: ${c.label}`, c.value)).join('\n')}
</section>`,
      )
      .join('\n');
    return shell.page(request, reply, 200, {
      title: 'Connect your client',
      scripts: ['copy-button.js'],
      body: `<h1>Connect your client</h1>
<p>Quarry’s MCP endpoint for your AI client:</p>
${copyable('mcp-url', 'MCP URL', mcpUrl)}
<p>Each client signs in to Quarry with your email and password the first time it connects, and sees only your organization’s research. You can see and disconnect the apps you connected under <a href="/app/preferences/apps">Connected apps</a>, or use a <a href="/app/preferences/tokens">personal access token</a> instead.</p>
${sections}`,
    });
  });
}
