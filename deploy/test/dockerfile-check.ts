// A Dockerfile read and checked without building it: its instructions and stages, COPY sources
// against the build context and .dockerignore, and what each image target runs.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A path pattern as a regular expression, the way Docker reads COPY sources and .dockerignore
 * lines: `*` and `?` within one path segment, `**` across any number of segments.
 */
function globRegex(pattern: string): string {
  return pattern
    .split(/(\*\*\/|\/\*\*|\*\*|\*|\?)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '/**') return '(?:/.*)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
}

/**
 * The paths (relative to `root`, files and directories) matching a glob, searched from the
 * pattern's fixed leading directories; node_modules and .git are not entered.
 */
export function expandGlob(root: string, pattern: string): string[] {
  const segments = pattern.split('/');
  const fixed = segments
    .slice(
      0,
      segments.findIndex((s) => /[*?[]/.test(s)),
    )
    .join('/');
  const regex = new RegExp(`^${globRegex(pattern)}$`);
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (regex.test(path)) found.push(path);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') walk(path);
    }
  };
  walk(fixed);
  return found.sort();
}

/**
 * A .dockerignore file (moby/patternmatcher semantics): patterns relative to the context root,
 * a pattern matching a directory excludes everything under it, `!` re-includes, and the last
 * matching pattern wins. `ignored(path)` tells whether a path is excluded; `reincludesUnder(dir)`
 * whether an exception (`!dir/...`) brings back part of an excluded directory, which Docker
 * then still copies.
 */
export function dockerignoreMatcher(text: string): {
  ignored(path: string): boolean;
  reincludesUnder(dir: string): boolean;
} {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const pattern = (include ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      return { include, pattern, regex: new RegExp(`^${globRegex(pattern)}(?:/.*)?$`) };
    });
  return {
    ignored(path) {
      let excluded = false;
      for (const rule of rules) if (rule.regex.test(path)) excluded = !rule.include;
      return excluded;
    },
    reincludesUnder(dir) {
      const prefix = new RegExp(`^${globRegex(dir)}/`);
      return rules.some((r) => r.include && (prefix.test(r.pattern) || r.pattern.startsWith(`${dir}/`)));
    },
  };
}

export interface DockerInstruction {
  instruction: string;
  /** The arguments with the instruction's `--flag=value` options removed. */
  args: string;
  flags: Record<string, string>;
  /** The stage the instruction belongs to (its `AS` name, or its index). */
  stage: string;
  line: number;
}

export interface DockerStage {
  name: string;
  from: string;
  line: number;
}

/**
 * The instructions of a Dockerfile, with line continuations joined, comments and parser
 * directives dropped, and each instruction tagged with its stage.
 */
export function parseDockerfile(text: string): { stages: DockerStage[]; instructions: DockerInstruction[] } {
  const stages: DockerStage[] = [];
  const instructions: DockerInstruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = line.replace(/\\\s*$/, ' ');
      i++;
      if (!/^\s*#/.test(lines[i]!)) line += lines[i]!;
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const instruction = match[1]!.toUpperCase();
    let rest = match[2]!.trim();
    const flags: Record<string, string> = {};
    let flag: RegExpExecArray | null;
    while ((flag = /^--([\w-]+)(?:=(\S*))?\s*/.exec(rest))) {
      flags[flag[1]!] = flag[2] ?? 'true';
      rest = rest.slice(flag[0].length);
    }
    if (instruction === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(rest);
      stages.push({ name: from?.[2] ?? String(stages.length), from: from?.[1] ?? '', line: start });
    }
    instructions.push({ instruction, args: rest, flags, stage: stages.at(-1)?.name ?? '', line: start });
  }
  return { stages, instructions };
}

/** The words of an exec-form (`["a","b"]`) or shell-form instruction argument. */
export function commandWords(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string'))
      throw new Error(`not a JSON string array: ${args}`);
    return parsed;
  }
  return trimmed.split(/\s+/).filter(Boolean);
}

/** The source paths of a COPY/ADD (everything but the destination), in exec or shell form. */
export function copySources(args: string): string[] {
  return commandWords(args).slice(0, -1);
}

export interface DockerfileCheck {
  dockerfile: string;
  dockerignore: string;
  /** The build context: COPY sources and entrypoint sources are looked up here. */
  root: string;
  /** The targets that must exist; each must run `node services/<target>/dist/<x>.js` (or `apps/<target>/…`). */
  targets: readonly string[];
  /** Extra arguments a target's command must end with (e.g. cli: ['migrate']). */
  defaultArgs?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Everything wrong with a Dockerfile that can be told without building it (empty = fine):
 * COPY/ADD sources that do not exist in the context or are excluded by .dockerignore,
 * `--from` stages that do not exist, missing targets, and per target: a base other than
 * Node 22 slim, a user other than `node`, no NODE_ENV=production, a WORKDIR other than /app,
 * a command that is not `node services/<target>/dist/….js` (or `apps/<target>/…`) with an existing `src/….ts`.
 */
export function dockerfileProblems({
  dockerfile,
  dockerignore,
  root,
  targets,
  defaultArgs = {},
}: DockerfileCheck): string[] {
  const { stages, instructions } = parseDockerfile(dockerfile);
  const stageNames = new Set(stages.map((s) => s.name));
  const { ignored, reincludesUnder } = dockerignoreMatcher(dockerignore);
  const problems: string[] = [];

  for (const copy of instructions.filter((i) => i.instruction === 'COPY' || i.instruction === 'ADD')) {
    if (copy.flags.from) {
      if (!stageNames.has(copy.flags.from))
        problems.push(`line ${copy.line}: ${copy.instruction} --from=${copy.flags.from}: no such stage`);
      continue;
    }
    for (const source of copySources(copy.args)) {
      const pattern = source.replace(/^\.\//, '').replace(/\/$/, '') || '.';
      const matched = /[*?[]/.test(pattern)
        ? expandGlob(root, pattern)
        : existsSync(join(root, pattern))
          ? [pattern]
          : [];
      if (matched.length === 0)
        problems.push(`line ${copy.line}: ${copy.instruction} ${source}: no such file in the build context`);
      else if (matched.every((path) => path !== '.' && ignored(path) && !reincludesUnder(path)))
        problems.push(`line ${copy.line}: ${copy.instruction} ${source}: excluded by .dockerignore`);
    }
  }

  /** A stage and the stages it is built FROM, nearest first; `image` is the external base. */
  const chain = (name: string) => {
    const names: string[] = [];
    let current = name;
    while (stageNames.has(current) && !names.includes(current)) {
      names.push(current);
      current = stages.find((s) => s.name === current)!.from;
    }
    return { names, image: current };
  };
  /** The instructions of a kind in effect for a target, the last one written first. */
  const inEffect = (target: string, instruction: string) =>
    chain(target)
      .names.flatMap((stage) => instructions.filter((i) => i.stage === stage && i.instruction === instruction))
      .sort((a, b) => b.line - a.line);

  for (const target of targets) {
    if (!stageNames.has(target)) {
      problems.push(`target ${target}: no stage named ${target}`);
      continue;
    }
    const { image } = chain(target);
    if (!/^node:22[\w.-]*-slim$/.test(image))
      problems.push(`target ${target}: base image ${image} is not node:22-*-slim`);
    if (inEffect(target, 'USER')[0]?.args !== 'node') problems.push(`target ${target}: does not run as user node`);
    if (!inEffect(target, 'ENV').some((e) => /(^|\s)NODE_ENV=production(\s|$)/.test(e.args)))
      problems.push(`target ${target}: NODE_ENV=production is not set`);
    if (inEffect(target, 'WORKDIR')[0]?.args !== '/app') problems.push(`target ${target}: WORKDIR is not /app`);

    const entrypoint = inEffect(target, 'ENTRYPOINT')[0];
    const cmd = inEffect(target, 'CMD')[0];
    const words = [...(entrypoint ? commandWords(entrypoint.args) : []), ...(cmd ? commandWords(cmd.args) : [])];
    const script = words[1] ?? '';
    if (words[0] !== 'node' || !new RegExp(`^(services|apps)/${target}/dist/[\\w/-]+\\.js$`).test(script)) {
      problems.push(
        `target ${target}: command ${JSON.stringify(words)} is not node services/${target}/dist/….js (or apps/)`,
      );
      continue;
    }
    const source = script.replace('/dist/', '/src/').replace(/\.js$/, '.ts');
    if (!existsSync(join(root, source))) problems.push(`target ${target}: ${script} has no source ${source}`);
    const args = defaultArgs[target] ?? [];
    if (JSON.stringify(words.slice(2)) !== JSON.stringify(args))
      problems.push(`target ${target}: arguments ${JSON.stringify(words.slice(2))}, expected ${JSON.stringify(args)}`);
  }
  return problems;
}
