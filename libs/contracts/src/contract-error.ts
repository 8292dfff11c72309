export interface ContractIssue {
  /** Field path in JSON naming, e.g. `steps[2].type`; empty for the whole value. */
  readonly path: string;
  readonly problem: string;
}

/** Arguments or a result that do not fit the tool's contract. */
export class ContractError extends Error {
  override name = 'ContractError';
  constructor(
    /** `arguments` (the caller's fault) or `response` (the service's fault). */
    readonly subject: 'arguments' | 'response',
    readonly issues: readonly ContractIssue[],
  ) {
    super(`Invalid ${subject}: ${issues.map((i) => `${i.path || subject}: ${i.problem}`).join('; ')}`);
  }
}

/** `path` and then `key`, as an issue names a field: `steps[2].type`. */
export function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
