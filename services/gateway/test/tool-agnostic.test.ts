import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '@quarry/contracts';

// The gateway serves whatever tools proto declares: adding a tool touches its proto, its handler
// and the service map, never the gateway. So no gateway source file names a tool. Code that
// builds on a particular tool (a prompt's text, a resource read through a tool) names it through
// `toolNames`, generated from proto, where a renamed tool fails the typecheck.

const SRC = new URL('../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Where a text names a tool: a snake_case tool name anywhere, a one-word name as a whole string. */
function toolsNamedIn(text: string): string[] {
  return toolCatalogue
    .map((tool) => tool.name)
    .filter((name) =>
      name.includes('_') ? new RegExp(`\\b${name}\\b`).test(text) : new RegExp(`(['"\`])${name}\\1`).test(text),
    );
}

/**
 * One-word strings that are a tool's name but mean something else in these files: `search` is
 * also the class of calls per-org quotas count for the search service's tools (read, write,
 * search, model), as configured, stored and classified.
 */
const SAME_WORD_ELSEWHERE: Readonly<Record<string, readonly string[]>> = {
  search: ['config.ts', 'quotas/tool-classes.ts', 'migrations/gateway/2026_11_28_2140_call_quotas.ts'],
};

describe('the gateway', () => {
  it('has source files to check', () => {
    expect(sourceFiles(SRC).length).toBeGreaterThan(50);
  });

  it('names no tool in any source file', () => {
    const named = sourceFiles(SRC)
      .map((file) => {
        const path = relative(SRC, file);
        const tools = toolsNamedIn(readFileSync(file, 'utf8'));
        return [path, tools.filter((tool) => !SAME_WORD_ELSEWHERE[tool]?.includes(path))] as const;
      })
      .filter(([, tools]) => tools.length > 0);
    expect(named).toEqual([]);
  });

  it('would notice a tool named in code, in a comment or as a one-word string', () => {
    expect(toolsNamedIn("if (name === 'extract_data') return;")).toEqual(['extract_data']);
    expect(toolsNamedIn('// read it with get_plan_status first')).toEqual(['get_plan_status']);
    expect(toolsNamedIn('const UNLOGGED = new Set(["ping"]);')).toEqual(['ping']);
    expect(toolsNamedIn('await fetch(url); // ping the server')).toEqual([]);
  });
});
