/** How one client connects to Quarry: the steps, what to copy, and an install link where the client has one. */
export interface ClientInstructions {
  id: string;
  name: string;
  steps: readonly string[];
  /** Values shown with a copy button (a command, the URL, a JSON snippet). */
  copy: ReadonlyArray<{ label: string; value: string }>;
  /** The client's own install deep link, where it has one. */
  installLink?: { label: string; href: string };
}

/** The name clients show for the server; also the key of their configuration entry. */
const SERVER_NAME = 'quarry';

/**
 * The steps for each client, for this Quarry's MCP URL (pure: tested against the formats the
 * clients document). Every client signs in with OAuth on the first call, through Quarry's sign-in
 * page, so no token is put into a command or a link.
 *
 * - Claude Code: `claude mcp add --transport http <name> <url>`, then `/mcp` to sign in.
 * - claude.ai and Claude Desktop: Settings → Connectors → Add custom connector, the URL.
 * - ChatGPT: developer mode (Settings → Apps & Connectors → Advanced), then Create with the URL.
 * - Cursor: `cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=<base64 of the mcp.json entry>`.
 * - VS Code: `vscode:mcp/install?<URL-encoded JSON of {name, type, url}>`.
 */
export function clientInstructions(mcpUrl: string): ClientInstructions[] {
  const cursorConfig = Buffer.from(JSON.stringify({ url: mcpUrl }), 'utf8').toString('base64');
  const vscodeConfig = JSON.stringify({ name: SERVER_NAME, type: 'http', url: mcpUrl });
  const publicNote = /^https:\/\//.test(mcpUrl)
    ? []
    : [
        'This URL is not public HTTPS: clients that connect from their own servers need Quarry behind a public HTTPS address (a reverse proxy or tunnel).',
      ];
  return [
    {
      id: 'claude-code',
      name: 'Claude Code',
      steps: [
        'Run this command in a terminal.',
        'In Claude Code, type /mcp, choose quarry and sign in with your Quarry email and password.',
      ],
      copy: [{ label: 'Command', value: `claude mcp add --transport http ${SERVER_NAME} ${mcpUrl}` }],
    },
    {
      id: 'claude-ai',
      name: 'claude.ai and Claude Desktop',
      steps: [
        'Open Settings, then Connectors, and choose Add custom connector.',
        'Name it Quarry and paste the MCP URL.',
        'Choose Connect and sign in with your Quarry email and password.',
        ...publicNote,
      ],
      copy: [{ label: 'MCP URL', value: mcpUrl }],
    },
    {
      id: 'chatgpt',
      name: 'ChatGPT',
      steps: [
        'Open Settings, then Apps & Connectors, then Advanced settings, and turn on Developer mode.',
        'Back in Apps & Connectors, choose Create, name it Quarry, paste the MCP URL and pick OAuth.',
        'Sign in with your Quarry email and password, then enable Quarry in a chat from the + menu.',
        ...publicNote,
      ],
      copy: [{ label: 'MCP URL', value: mcpUrl }],
    },
    {
      id: 'cursor',
      name: 'Cursor',
      steps: [
        'Open the install link: Cursor asks to add Quarry.',
        'Or add the entry to ~/.cursor/mcp.json under "mcpServers".',
        'Cursor opens Quarry’s sign-in page the first time it connects.',
      ],
      copy: [{ label: 'mcp.json entry', value: JSON.stringify({ [SERVER_NAME]: { url: mcpUrl } }) }],
      installLink: {
        label: 'Add Quarry to Cursor',
        href: `cursor://anysphere.cursor-deeplink/mcp/install?name=${SERVER_NAME}&config=${encodeURIComponent(cursorConfig)}`,
      },
    },
    {
      id: 'vscode',
      name: 'VS Code',
      steps: [
        'Open the install link: VS Code asks to install the Quarry server.',
        'Or run the command from the Command Palette: MCP: Add Server, HTTP, and paste the MCP URL.',
        'VS Code opens Quarry’s sign-in page the first time it starts the server.',
      ],
      copy: [{ label: 'Command line', value: `code --add-mcp '${vscodeConfig}'` }],
      installLink: {
        label: 'Install Quarry in VS Code',
        href: `vscode:mcp/install?${encodeURIComponent(vscodeConfig)}`,
      },
    },
  ];
}
