import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ArgumentKind, PromptSpec } from './catalogue.js';
import type { Depth, Vocabulary } from './vocabulary.js';

/** A prompt's arguments once checked: each kind at most once, typed. */
export interface PromptArguments {
  question?: string;
  depth?: Depth;
  planId?: string;
  mediaType?: string;
  stepType?: string;
}

/** A plan's researchQuestion takes at most this many characters (as the tool that creates plans allows). */
const QUESTION_MAX = 4000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/**
 * Checks prompts/get arguments against the prompt's spec: every required one present, no unknown
 * names, closed lists respected. Each refusal is a JSON-RPC invalid-params error naming the
 * argument and what it takes, so the user (or the client) can correct it.
 */
export function parsePromptArguments(
  spec: PromptSpec,
  raw: Record<string, unknown> | undefined,
  vocabulary: Vocabulary,
): PromptArguments {
  const given = raw ?? {};
  const known = spec.arguments.map((a) => a.name);
  for (const name of Object.keys(given)) {
    if (!known.includes(name))
      throw invalidParams(`${spec.name} has no argument "${name}"; it takes ${known.join(', ')}.`);
  }
  const parsed: PromptArguments = {};
  for (const arg of spec.arguments) {
    const value = given[arg.name];
    const text = typeof value === 'string' ? value.trim() : undefined;
    if (value === undefined || text === '') {
      if (arg.required) throw invalidParams(`${spec.name} needs the argument "${arg.name}": ${arg.description}`);
      continue;
    }
    if (text === undefined) throw invalidParams(`The argument "${arg.name}" of ${spec.name} must be a string.`);
    assign(parsed, arg.kind, checked(arg.kind, arg.name, text, vocabulary));
  }
  return parsed;
}

function checked(kind: ArgumentKind, name: string, value: string, vocabulary: Vocabulary): string {
  const oneOf = (values: readonly string[]) => {
    if (!values.includes(value))
      throw invalidParams(`"${value}" is not a valid ${name}; use one of: ${values.join(', ')}.`);
    return value;
  };
  switch (kind) {
    case 'question':
      if (value.length > QUESTION_MAX)
        throw invalidParams(`The ${name} is ${value.length} characters long; at most ${QUESTION_MAX} are allowed.`);
      return value;
    case 'planId':
      if (!UUID.test(value))
        throw invalidParams(`"${value}" is not a plan ID (a UUID); complete the ${name} argument to find your plan.`);
      return value.toLowerCase();
    case 'depth':
      return oneOf(vocabulary.depths);
    case 'mediaType':
      return oneOf(vocabulary.mediaTypes);
    case 'stepType':
      return oneOf(vocabulary.stepTypes);
  }
}

function assign(parsed: PromptArguments, kind: ArgumentKind, value: string): void {
  if (kind === 'depth') parsed.depth = value as Depth;
  else parsed[kind] = value;
}
