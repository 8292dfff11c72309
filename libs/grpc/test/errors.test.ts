import { describe, expect, it } from '@jest/globals';
import { Metadata, status } from '@grpc/grpc-js';
import {
  defaultErrorCode,
  defineErrors,
  ERROR_CODE_METADATA_KEY,
  ERROR_DETAILS_METADATA_KEY,
  fromGrpcError,
  grpcErrors,
  QuarryError,
  toGrpcStatus,
} from '../src/index.js';

const planErrors = defineErrors({
  PLAN_NOT_FOUND: { status: status.NOT_FOUND, message: (p: { planId: string }) => `Plan ${p.planId} not found` },
  PLAN_LOCKED: { status: status.FAILED_PRECONDITION, message: 'The plan is locked' },
});

/** Every status a failed call can carry (all but OK). */
const failureStatuses = Object.values(status).filter((s): s is status => typeof s === 'number' && s !== status.OK);

/** What a grpc-js client receives for a status the server sent. */
function received(sent: { code: status; details: string; metadata?: Metadata }) {
  return Object.assign(new Error(`${sent.code} ${status[sent.code]}: ${sent.details}`), sent);
}

describe('defineErrors', () => {
  it('builds typed factories that carry code, status, message and details', () => {
    const error = planErrors.PLAN_NOT_FOUND({ planId: 'p-1' }, { details: { planId: 'p-1' } });
    expect(error).toBeInstanceOf(QuarryError);
    expect(error).toMatchObject({ code: 'PLAN_NOT_FOUND', status: status.NOT_FOUND, message: 'Plan p-1 not found' });
    expect(error.details).toEqual({ planId: 'p-1' });
    expect(planErrors.PLAN_LOCKED().message).toBe('The plan is locked');
    expect(planErrors.PLAN_NOT_FOUND.code).toBe('PLAN_NOT_FOUND');
    expect(planErrors.PLAN_NOT_FOUND.status).toBe(status.NOT_FOUND);
  });

  it('recognises its own errors with is()', () => {
    expect(planErrors.PLAN_LOCKED.is(planErrors.PLAN_LOCKED())).toBe(true);
    expect(planErrors.PLAN_LOCKED.is(planErrors.PLAN_NOT_FOUND({ planId: 'x' }))).toBe(false);
    expect(planErrors.PLAN_LOCKED.is(new Error('PLAN_LOCKED'))).toBe(false);
  });

  it('keeps a cause locally without putting it in the message', () => {
    const cause = new Error('duplicate key value violates unique constraint');
    const error = planErrors.PLAN_LOCKED({ cause });
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('The plan is locked');
  });

  it('rejects codes that are not UPPER_SNAKE_CASE and the OK status', () => {
    expect(() => defineErrors({ planNotFound: { status: status.NOT_FOUND, message: 'x' } })).toThrow(
      /UPPER_SNAKE_CASE/,
    );
    expect(() => defineErrors({ FINE: { status: status.OK, message: 'x' } })).toThrow(/other than OK/);
  });
});

describe('the built-in catalogue', () => {
  it('covers identity, deadlines, cancellation, internal, invalid argument and unavailable', () => {
    expect(grpcErrors.IDENTITY_MISSING().status).toBe(status.UNAUTHENTICATED);
    expect(grpcErrors.IDENTITY_INVALID().status).toBe(status.UNAUTHENTICATED);
    expect(grpcErrors.IDENTITY_EXPIRED().status).toBe(status.UNAUTHENTICATED);
    expect(grpcErrors.DEADLINE_EXCEEDED().status).toBe(status.DEADLINE_EXCEEDED);
    expect(grpcErrors.CANCELLED().status).toBe(status.CANCELLED);
    expect(grpcErrors.INTERNAL().status).toBe(status.INTERNAL);
    expect(grpcErrors.SERVICE_UNAVAILABLE().status).toBe(status.UNAVAILABLE);
    const invalid = grpcErrors.INVALID_ARGUMENT({ field: 'planId', reason: 'must be a UUID' });
    expect(invalid).toMatchObject({ status: status.INVALID_ARGUMENT, message: 'planId: must be a UUID' });
  });
});

describe('the wire mapping', () => {
  it.each(failureStatuses.map((s) => [status[s], s] as const))(
    'round-trips a coded %s error with its details',
    (_name, s) => {
      const thrown = new QuarryError(`TEST_${status[s]}`, s, `failed with ${status[s]}`, {
        n: 1,
        nested: { ok: true },
      });
      const sent = toGrpcStatus(thrown);
      expect(sent.metadata.get(ERROR_CODE_METADATA_KEY)).toEqual([`TEST_${status[s]}`]);
      expect(sent.metadata.get(ERROR_DETAILS_METADATA_KEY)[0]).toBeInstanceOf(Buffer);
      const caught = fromGrpcError(received(sent));
      expect(caught).toMatchObject({ code: thrown.code, status: s, message: thrown.message, details: thrown.details });
    },
  );

  it.each(failureStatuses.map((s) => [status[s], s] as const))(
    'gives an uncoded %s status its default code',
    (_name, s) => {
      const caught = fromGrpcError(received({ code: s, details: 'from elsewhere', metadata: new Metadata() }));
      expect(caught).toMatchObject({ code: defaultErrorCode(s), status: s, message: 'from elsewhere' });
      expect(caught.details).toBeUndefined();
    },
  );

  it('names the defaults after the status, with UNAVAILABLE as SERVICE_UNAVAILABLE', () => {
    expect(defaultErrorCode(status.UNAVAILABLE)).toBe('SERVICE_UNAVAILABLE');
    expect(defaultErrorCode(status.DEADLINE_EXCEEDED)).toBe('DEADLINE_EXCEEDED');
    expect(defaultErrorCode(status.NOT_FOUND)).toBe('NOT_FOUND');
  });

  it('ignores malformed codes and details rather than trusting them', () => {
    const metadata = new Metadata();
    metadata.set(ERROR_CODE_METADATA_KEY, 'not a code');
    metadata.set(ERROR_DETAILS_METADATA_KEY, Buffer.from('{not json'));
    const caught = fromGrpcError(received({ code: status.NOT_FOUND, details: 'gone', metadata }));
    expect(caught).toMatchObject({ code: 'NOT_FOUND', details: undefined });
  });

  it('turns anything that is not a gRPC error into INTERNAL and passes QuarryErrors through', () => {
    expect(fromGrpcError(new TypeError('x')).code).toBe('INTERNAL');
    const error = planErrors.PLAN_LOCKED();
    expect(fromGrpcError(error)).toBe(error);
  });
});
