import { chatgpt } from './chatgpt.js';
import { claudeAi } from './claude-ai.js';
import { claudeCode } from './claude-code.js';
import { claudeDesktop } from './claude-desktop.js';
import type { ClientFixture } from './client-fixture.js';
import { cursor } from './cursor.js';
import { goose } from './goose.js';
import { inspector } from './inspector.js';
import { vscode } from './vscode.js';
import { windsurf } from './windsurf.js';

/** Every client of the compatibility matrix (README, "Clients"), in the README's order. */
export const CLIENTS: readonly ClientFixture[] = [
  claudeCode,
  claudeAi,
  claudeDesktop,
  chatgpt,
  cursor,
  vscode,
  windsurf,
  goose,
  inspector,
];
