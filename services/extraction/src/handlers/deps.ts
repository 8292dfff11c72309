import type { Logger } from 'pino';
import type { ArtifactPort } from '../artifacts.js';
import type { GuardOptions } from '../core/schema-guard.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { CitationVerifications } from '../store/citation-verifications.js';
import type { ModelQuotas } from '../store/model-quotas.js';
import type { PendingSubmissions } from '../store/pending-submissions.js';
import type { ConfiguredProvider, ExtractionProviders } from '../selection.js';

export interface ExtractionServiceDeps {
  artifacts: ArtifactPort;
  providers: ExtractionProviders;
  /** EXTRACTION_PROVIDER. */
  provider: ConfiguredProvider;
  /** EXTRACTION_SAMPLING: ask clients that can sample. */
  samplingEnabled: boolean;
  /** EXTRACTION_TIMEOUT: the budget of one model call (retries included); the repair round gets its own. */
  timeoutMs: number;
  /** EXTRACTION_MAX_TOKENS, for sampling requests (API providers were built with it). */
  maxTokens: number;
  logger: Logger;
  /** EXTRACTION_HANDLE_KEY: signs submission handles (HMAC-SHA256). */
  handleKey: Buffer;
  /** EXTRACTION_HANDLE_TTL: how long a submission handle can be submitted. */
  handleTtlMs: number;
  /** What submission handles refer to (extraction.pending_submissions): the caller sends back only its data. */
  submissions?: PendingSubmissions;
  /** What verify_citations handles refer to, and the record of submitted verifications. */
  verifications?: CitationVerifications;
  /** Durable jobs for extractions that outlast their caller's budget (extraction.jobs). */
  jobs?: JobRunner;
  /** Each org's server-model extractions and tokens per day (none without it). */
  modelQuotas?: ModelQuotas;
  /** The clock handles are issued and checked by (tests move it); Date.now otherwise. */
  now?: () => number;
  /** Time bounds of the schema guard (tests); the guard's defaults otherwise. */
  guardOptions?: GuardOptions;
}
