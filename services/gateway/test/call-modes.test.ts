import { describe, expect, it } from '@jest/globals';
import { toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import type { CallModeDeps, CallShape } from '../src/mcp/call-modes/call-mode.js';
import { createCallModes, modeFor } from '../src/mcp/call-modes/modes.js';
import type { TaskRunner } from '../src/mcp/tasks/task-runner.js';
import { stubTools } from './stub-deps.js';

// Which way a tools/call runs, decided from the tool's definition and what the request declares:
// the list in call-modes/modes.ts, asked in order. The endpoint runs the mode it gives; the fast
// path answers only what it gives to `plain`. No call runs here: only the decision.

const tool = (name: string): ToolDefinition => toolCatalogue.find((t) => t.name === name)!;
const deps = (tasks?: TaskRunner): CallModeDeps => ({
  tools: stubTools(),
  mintState: async () => 'state',
  tasks,
});
// The decision never touches the runner: any object stands for "tasks are served".
const withTasks = createCallModes(deps({} as TaskRunner));
const withoutTasks = createCallModes(deps());

const shape = (name: string, over: Partial<CallShape> = {}): CallShape => ({
  tool: tool(name),
  args: {},
  era: 'modern',
  capabilities: {},
  progressToken: undefined,
  retry: false,
  ...over,
});
const modeOf = (call: CallShape, modes = withTasks) => modeFor(modes, call).name;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

describe('the mode a tool call runs in', () => {
  it('is plain for a call no other mode takes', () => {
    expect(modeOf(shape('ping'))).toBe('plain');
    expect(modeOf(shape('get_plan_status', { args: { waitSeconds: 0 }, progressToken: 't' }))).toBe('plain');
    expect(modeOf(shape('extract_data'))).toBe('plain');
    expect(modeOf(shape('extract_data', { era: 'legacy', capabilities: { sampling: {} } }))).toBe('plain');
  });

  it('is elicitation for a tool that can ask the user, in both eras, whatever the client declares', () => {
    expect(modeOf(shape('request_user_review'))).toBe('elicitation');
    expect(modeOf(shape('request_user_review', { era: 'legacy', capabilities: undefined }))).toBe('elicitation');
  });

  it('is sampling for a tool that can ask for the model, when a 2026-07-28 client may be asked or retries', () => {
    expect(modeOf(shape('extract_data', { capabilities: { sampling: {} } }))).toBe('sampling');
    expect(modeOf(shape('extract_data', { retry: true }))).toBe('sampling');
    // Sampling wins over tasks: the exchange lives on the request itself.
    expect(modeOf(shape('extract_data', { capabilities: { sampling: {}, ...TASKS } }))).toBe('sampling');
    expect(modeOf(shape('ping', { capabilities: { sampling: {} } }))).toBe('plain');
  });

  it('is task for a tool that runs a model, when the client declares the extension and tasks are served', () => {
    expect(modeOf(shape('extract_data', { capabilities: TASKS }))).toBe('task');
    expect(modeOf(shape('extract_data', { capabilities: TASKS }), withoutTasks)).toBe('plain');
    expect(modeOf(shape('extract_data', { capabilities: TASKS, era: 'legacy' }))).toBe('plain');
    expect(modeOf(shape('get_plan_status', { capabilities: TASKS, args: { waitSeconds: 30 } }))).toBe('plain');
  });

  it('is progress for a long call whose client sent a progress token', () => {
    expect(modeOf(shape('get_plan_status', { args: { waitSeconds: 30 }, progressToken: 7 }))).toBe('progress');
    expect(modeOf(shape('extract_data', { progressToken: 'p', era: 'legacy' }))).toBe('progress');
    expect(modeOf(shape('get_plan_status', { args: { waitSeconds: 30 } }))).toBe('plain');
  });
});
