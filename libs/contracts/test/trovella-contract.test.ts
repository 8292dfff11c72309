import { describe, expect, it } from '@jest/globals';
import { toolCatalogue, type JsonSchema } from '@quarry/contracts';
import { properties, required, tool } from './support/tools.js';

// The public contract Quarry follows: Trovella's 18 research tools, as its tool catalogue
// documents them (every parameter's name, type, enum values, default and whether it is
// required; every result field). The table below is taken from that reference, not from
// Quarry's protos, and the generated catalogue is held to it: a renamed field, a changed type, a
// missing enum value or a new required parameter fails here. Quarry's additions (idempotencyKey,
// waitSeconds, tags, cursors, per-leg ranks…) are allowed, but only as optional parameters and
// extra result fields, so a client written against the reference keeps working.

type ParamType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'object'
  | 'string[]'
  | 'object[]'
  | { enum: readonly string[] }
  | { pattern: readonly string[] };

interface Param {
  type: ParamType;
  /** Required by the reference ("one required" alternatives and per-action fields are optional in a schema). */
  required?: boolean;
  /** The reference's default, stated in the property's description. */
  default?: number;
  /** The reference's inclusive range. */
  range?: [number, number];
}

/** Result fields: a name, or a name with the fields of its object (or of its array's items). */
type Fields = readonly (string | readonly [string, Fields])[];

interface ToolContract {
  params: Record<string, Param>;
  result: Fields;
  /** Enum values of result fields, by dotted path. */
  resultEnums?: Record<string, readonly string[]>;
}

const STEP_TYPES = ['search', 'extract', 'analyze', 'critique', 'synthesize', 'checkpoint', 'custom'];
const ARTIFACT_TYPES = ['analysis', 'synthesis', 'comparison', 'summary', 'source_list', 'finding'];
const MEDIA_TYPES = ['conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint'];
const SOURCE_TABLES = ['research_artifact', 'research_output', 'extraction_result'];
const s = { type: 'string' } as const;
const req = { type: 'string', required: true } as const;

const CONTRACT: Record<string, ToolContract> = {
  ping: { params: {}, result: [] },
  create_research_plan: {
    params: {
      name: req,
      researchQuestion: req,
      steps: { type: 'object[]', required: true },
      branchingConditions: { type: 'object[]' },
      sessionId: s,
      planDesignRationale: s,
      outputFormattingNotes: s,
    },
    result: ['planId', 'name', 'researchQuestion', 'stepCount', ['firstStep', ['stepId', 'stepType', 'instructions']]],
    resultEnums: { 'firstStep.stepType': STEP_TYPES },
  },
  get_plan_status: {
    params: { planId: req },
    result: [
      'planId',
      'name',
      'status',
      'derivedStatus',
      'stalled',
      'progress',
      'totalSteps',
      'currentStep',
      'completedSteps',
      'pendingSteps',
    ],
  },
  modify_plan: {
    params: {
      planId: req,
      action: {
        type: { enum: ['add_steps', 'remove_step', 'reorder_steps', 'update_step_instructions', 'fail_step'] },
        required: true,
      },
      steps: { type: 'object[]' },
      stepId: s,
      reason: s,
      stepOrder: { type: 'string[]' },
      updatedInstructions: s,
      modificationRationale: s,
      sessionId: s,
    },
    result: [],
  },
  list_active_plans: {
    params: {},
    result: [
      'activePlans',
      [
        'plans',
        ['planId', 'name', 'researchQuestion', 'status', 'progress', 'totalSteps', 'completedSteps', 'updatedAt'],
      ],
    ],
  },
  get_next_step: {
    params: { planId: req, sessionId: s },
    result: [
      'status',
      ['step', ['stepId', 'stepOrder', 'stepType', 'instructions']],
      'outputMediaType',
      'outputFormattingInstructions',
      'planFormattingNotes',
      'stepFormattingNotes',
    ],
    resultEnums: {
      status: ['next_step', 'plan_complete', 'plan_failed', 'awaiting_review', 'no_pending_steps'],
      outputMediaType: MEDIA_TYPES,
    },
  },
  submit_step_result: {
    params: {
      planId: req,
      stepId: req,
      result: { type: 'object', required: true },
      confidence: { type: 'number', range: [0, 1] },
      stepExecutionReport: { type: 'object' },
      outputFormattingNotes: s,
      sessionId: s,
    },
    result: ['submitted', 'planStatus'],
  },
  get_step_context: {
    params: { planId: req, stepId: req, priorStepIds: { type: 'string[]' } },
    result: [
      'currentStep',
      ['priorSteps', ['stepId', 'stepOrder', 'stepType', 'resultSummary', 'confidence']],
      'artifacts',
    ],
  },
  request_user_review: {
    params: { planId: req, stepId: req, summary: req, questions: { type: 'string[]' }, sessionId: s },
    result: [],
  },
  submit_user_decision: {
    params: {
      planId: req,
      stepId: req,
      decision: { type: { enum: ['approve', 'reject', 'modify', 'skip'] }, required: true },
      feedback: s,
      sessionId: s,
    },
    result: [],
  },
  get_research_context: {
    params: { planId: req, sessionId: s },
    result: [
      ['plan', ['id', 'name', 'researchQuestion', 'status', 'createdAt']],
      ['steps', ['stepId', 'stepOrder', 'stepType', 'status', 'instructions', 'resultSummary', 'confidence']],
      ['artifacts', ['id', 'artifactType', 'title', 'confidence', 'stepId', 'createdAt']],
      ['recentAuditEvents', ['eventType', 'eventData', 'stepId', 'createdAt']],
      ['skillExecution', ['id', 'skillName', 'status', 'metadata', 'durationMs']],
      [
        'outputPreferences',
        ['outputMediaType', 'outputFormattingInstructions', 'planFormattingNotes', 'stepFormattingNotes'],
      ],
    ],
  },
  store_research: {
    params: {
      artifactType: { type: { enum: ARTIFACT_TYPES }, required: true },
      title: req,
      content: { type: 'object', required: true },
      contentText: s,
      confidence: { type: 'number', range: [0, 1] },
      planId: s,
      stepId: s,
    },
    result: ['id', 'artifactType', 'title', 'stored'],
  },
  search_sources: {
    params: {
      query: req,
      limit: { type: 'number', default: 10, range: [1, 50] },
      sourceTable: { type: { enum: SOURCE_TABLES } },
      artifactType: { type: { enum: ARTIFACT_TYPES } },
      planId: s,
    },
    result: [
      'query',
      'queryType',
      'resultCount',
      'keywordResults',
      'semanticResults',
      ['results', ['id', 'sourceTable', 'sourceId', 'title', 'rrfScore', 'inKeyword', 'inSemantic', 'textSnippet']],
    ],
    resultEnums: { queryType: ['keyword', 'balanced', 'semantic'], 'results.sourceTable': SOURCE_TABLES },
  },
  extract_data: {
    params: {
      sourceText: s,
      sourceArtifactId: s,
      extractionSchema: { type: 'object', required: true },
      schemaVersion: { type: 'number', default: 1 },
      planId: s,
      stepId: s,
      sourceUrl: s,
      sourceLocation: { type: 'object' },
    },
    result: ['extractionId', 'data', 'fieldConfidences', 'overallConfidence', 'status'],
    // The reference's `completed`, then Quarry's addition: `awaiting_submission` when the caller's
    // own model is to fill the schema (a signed handle for submit_extraction, ADR 0028), and
    // `running` when a server model outlasts a 2025-era client's wait (a job to poll, ADR 0044).
    resultEnums: { status: ['completed', 'awaiting_submission', 'running'] },
  },
  store_research_output: {
    params: {
      planId: req,
      mediaType: { type: { enum: MEDIA_TYPES }, required: true },
      title: req,
      content: req,
      contentSummary: s,
      formattingNotesUsed: s,
      sessionId: s,
    },
    result: ['outputId', 'mediaType', 'title', 'stored'],
  },
  submit_subagent_report: {
    params: {
      planId: req,
      stepId: req,
      description: req,
      report: { type: 'object', required: true },
      sessionId: s,
    },
    result: ['reportId', 'stored'],
  },
  log_skill_execution: {
    params: {
      executionId: s,
      skillName: { type: { pattern: ['research', 'research-scan', 'research-deep'] }, required: true },
      status: { type: { enum: ['started', 'executing', 'completed', 'failed'] }, required: true },
      planId: s,
      metadata: { type: 'object' },
      errorMessage: s,
      sessionId: s,
    },
    result: ['executionId', 'skillName', 'status', 'stored'],
  },
  submit_research_feedback: {
    params: {
      planId: req,
      feedbackType: { type: { enum: ['initial', 'closing'] }, required: true },
      userSatisfaction: { type: { enum: ['positive', 'neutral', 'negative', 'none'] } },
      userFeedbackSummary: s,
      improvementSuggestions: s,
      followUpRequested: { type: 'boolean' },
      followUpDetails: s,
      sessionId: s,
    },
    result: ['feedbackId', 'feedbackType', 'stored'],
    resultEnums: { feedbackType: ['initial', 'closing'] },
  },
};

/** What a parameter's schema must be for the reference's type. */
function expectType(schema: Record<string, unknown>, type: ParamType): void {
  if (typeof type === 'object' && 'enum' in type) {
    expect(schema).toMatchObject({ type: 'string', enum: [...type.enum] });
  } else if (typeof type === 'object') {
    // A string whose pattern admits exactly the reference's values.
    expect(schema.type).toBe('string');
    const pattern = new RegExp(schema.pattern as string);
    for (const value of type.pattern) expect(pattern.test(value)).toBe(true);
    for (const value of ['', 'research-other', 'Research', ...type.pattern.map((v) => `${v}x`)]) {
      expect(pattern.test(value)).toBe(false);
    }
  } else if (type === 'number') {
    expect(['number', 'integer']).toContain(schema.type);
  } else if (type === 'string[]' || type === 'object[]') {
    expect(schema.type).toBe('array');
    expect((schema.items as Record<string, unknown>).type).toBe(type.slice(0, -2));
  } else {
    expect(schema.type).toBe(type);
  }
}

/** The object schema at a result field: the field's own, or its array's items. */
function objectAt(schema: Record<string, unknown>): JsonSchema {
  return (schema.type === 'array' ? schema.items : schema) as JsonSchema;
}

function expectFields(schema: JsonSchema, fields: Fields, path: string): void {
  const props = properties(schema) ?? {};
  for (const field of fields) {
    const [name, nested] = typeof field === 'string' ? [field, undefined] : field;
    expect({ field: `${path}${name}`, present: name in props }).toEqual({ field: `${path}${name}`, present: true });
    if (nested) expectFields(objectAt(props[name]!), nested, `${path}${name}.`);
  }
}

function schemaAtPath(schema: JsonSchema, path: string): Record<string, unknown> {
  let at = schema as Record<string, unknown>;
  for (const name of path.split('.')) at = properties(objectAt(at) as JsonSchema)[name]!;
  return at;
}

describe('the catalogue against Trovella’s tool reference', () => {
  it('has exactly the reference’s 18 tools (and Quarry’s own tools apart from them)', () => {
    const names = toolCatalogue.map((t) => t.name);
    for (const name of Object.keys(CONTRACT)) expect(names).toContain(name);
    expect(Object.keys(CONTRACT)).toHaveLength(18);
  });

  describe.each(Object.entries(CONTRACT))('%s', (name, contract) => {
    const t = tool(name);
    const input = properties(t.inputSchema);

    it('takes every reference parameter with its type, enum values, range and default', () => {
      for (const [param, spec] of Object.entries(contract.params)) {
        expect({ param, present: param in input }).toEqual({ param, present: true });
        expectType(input[param]!, spec.type);
        if (spec.range) {
          expect(input[param]).toMatchObject({ minimum: spec.range[0], maximum: spec.range[1] });
        }
        if (spec.default !== undefined) {
          expect(input[param]!.description).toContain(`(default ${spec.default})`);
        }
      }
    });

    it('requires exactly the reference’s required parameters: additions are optional', () => {
      const expected = Object.entries(contract.params)
        .filter(([, spec]) => spec.required)
        .map(([param]) => param);
      expect([...required(t.inputSchema)].sort()).toEqual(expected.sort());
    });

    it('returns every reference result field, with the reference’s enum values', () => {
      expectFields(t.outputSchema, contract.result, '');
      for (const [path, values] of Object.entries(contract.resultEnums ?? {})) {
        expect({ path, enum: schemaAtPath(t.outputSchema, path).enum }).toEqual({ path, enum: values });
      }
    });
  });

  it('lets a plan status, step status and step type take the reference’s values wherever they appear', () => {
    const plan = ['planning', 'executing', 'awaiting_review', 'stalled', 'completed', 'failed'];
    expect(schemaAtPath(tool('get_plan_status').outputSchema, 'status').enum).toEqual(expect.arrayContaining(plan));
    expect(schemaAtPath(tool('submit_step_result').outputSchema, 'planStatus').enum).toEqual(
      expect.arrayContaining(plan),
    );
    expect(schemaAtPath(tool('get_research_context').outputSchema, 'steps.stepType').enum).toEqual(STEP_TYPES);
    expect(schemaAtPath(tool('get_research_context').outputSchema, 'steps.status').enum).toEqual(
      expect.arrayContaining(['pending', 'in_progress', 'awaiting_input', 'completed', 'skipped', 'failed']),
    );
    const stepsOfPlan = properties(tool('create_research_plan').inputSchema).steps!;
    expect(properties(objectAt(stepsOfPlan) as JsonSchema).stepType).toMatchObject({ enum: STEP_TYPES });
  });

  it('marks the writers as writers: get_research_context records session_resumed, so it is not read-only', () => {
    expect(tool('get_research_context').annotations.readOnlyHint).toBe(false);
    for (const name of ['get_plan_status', 'get_step_context', 'list_active_plans', 'search_sources', 'ping']) {
      expect({ name, readOnly: tool(name).annotations.readOnlyHint }).toEqual({ name, readOnly: true });
    }
  });
});
