import { describe, expect, it } from '@jest/globals';
import { type CallContext, handlersWith, unary, unaryHandlerOf } from '../src/index.js';

describe('unaryHandlerOf', () => {
  it('returns the async function a unary() method wraps, callable in-process', async () => {
    const inner = async (request: { text: string }, ctx: CallContext) => ({
      text: `${request.text} for ${ctx.identity.orgId}`,
    });
    const handler = unaryHandlerOf(unary(inner));
    expect(handler).toBe(inner);
    const ctx = { identity: { kind: 'user', orgId: 'org-1', requestId: 'r-1' } } as CallContext;
    await expect(handler!({ text: 'hi' }, ctx)).resolves.toEqual({ text: 'hi for org-1' });
  });

  it('returns undefined for a handler not made with unary() and for non-functions', () => {
    expect(unaryHandlerOf((_call: unknown, _callback: unknown) => undefined)).toBeUndefined();
    expect(unaryHandlerOf(undefined)).toBeUndefined();
    expect(unaryHandlerOf({})).toBeUndefined();
  });
});

describe('handlersWith', () => {
  it('makes each (deps, request, ctx) handler the unary() method of its name, deps bound', async () => {
    const deps = { greeting: 'hello' };
    const greet = async (d: typeof deps, request: { name: string }, ctx: CallContext) =>
      `${d.greeting} ${request.name} of ${ctx.identity.orgId}`;
    const shout = async (d: typeof deps, request: { name: string }) => `${d.greeting.toUpperCase()} ${request.name}`;
    const implementation = handlersWith(deps, { greet, shout });
    expect(Object.keys(implementation)).toEqual(['greet', 'shout']);
    const ctx = { identity: { kind: 'user', orgId: 'org-1', requestId: 'r-1' } } as CallContext;
    await expect(unaryHandlerOf(implementation.greet)!({ name: 'Ada' }, ctx)).resolves.toBe('hello Ada of org-1');
    await expect(unaryHandlerOf(implementation.shout)!({ name: 'Ada' }, ctx)).resolves.toBe('HELLO Ada');
  });
});
