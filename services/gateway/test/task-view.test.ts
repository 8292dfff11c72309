import { describe, expect, it } from '@jest/globals';
import { ABANDONED_MESSAGE, taskView, type TaskRecord } from '../src/mcp/tasks/task-view.js';

// What tasks/get shows of a stored task at a given moment (the store and the wire:
// mcp-tasks.test.ts).

const created = new Date('2026-11-26T10:00:00Z');
const at = (seconds: number) => new Date(created.getTime() + seconds * 1000);
const record = (overrides: Partial<TaskRecord> = {}): TaskRecord => ({
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  status: 'working',
  statusMessage: 'extract_data is running.',
  result: null,
  error: null,
  createdAt: created,
  updatedAt: created,
  runDeadline: at(180),
  expiresAt: at(3600),
  ...overrides,
});

describe('taskView', () => {
  it('shows a working task with its ttl and the polling interval', () => {
    expect(taskView(record(), at(5), 2000)).toEqual({
      taskId: 'a1b2c3d4-0000-4000-8000-000000000001',
      status: 'working',
      statusMessage: 'extract_data is running.',
      createdAt: '2026-11-26T10:00:00.000Z',
      lastUpdatedAt: '2026-11-26T10:00:00.000Z',
      ttlMs: 3_600_000,
      pollIntervalMs: 2000,
    });
  });

  it('inlines the result of a completed task and the error of a failed one, without a polling interval', () => {
    const result = { content: [{ type: 'text', text: '{}' }], structuredContent: {} };
    const done = taskView(record({ status: 'completed', result, updatedAt: at(9) }), at(10), 2000)!;
    expect(done).toMatchObject({ status: 'completed', result, lastUpdatedAt: '2026-11-26T10:00:09.000Z' });
    expect(done).not.toHaveProperty('pollIntervalMs');
    const error = { code: -32603, message: 'Internal error.' };
    expect(taskView(record({ status: 'failed', error }), at(10), 2000)).toMatchObject({ status: 'failed', error });
    expect(taskView(record({ status: 'cancelled' }), at(10), 2000)).not.toHaveProperty('result');
  });

  it('reads a task still working past its run deadline as failed: its replica stopped', () => {
    expect(taskView(record(), at(180), 2000)).toMatchObject({
      status: 'failed',
      statusMessage: ABANDONED_MESSAGE,
      lastUpdatedAt: '2026-11-26T10:03:00.000Z',
      error: { code: -32603, message: ABANDONED_MESSAGE },
    });
    // A finished task is what it is, deadline or not.
    expect(taskView(record({ status: 'cancelled' }), at(600), 2000)).toMatchObject({ status: 'cancelled' });
  });

  it('shows nothing once the task has expired', () => {
    expect(taskView(record({ status: 'completed', result: {} }), at(3600), 2000)).toBeUndefined();
  });
});
