import { describe, expect, it } from '@jest/globals';
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import * as contracts from '@quarry/contracts';
import { createToolCodec, descriptorSet, identityV1, toolCatalogue } from '@quarry/contracts';
import { strictAjv } from './support/ajv.js';

describe('the tool catalogue', () => {
  it('publishes ping with its title, the rpc comment as description, read-only hints, schemas, as a liveness check', () => {
    expect(toolCatalogue.find((tool) => tool.name === 'ping')).toEqual({
      name: 'ping',
      title: 'Ping',
      description: 'Check that Quarry is reachable and your token works. Returns your organization, name and email.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: {
        type: 'object',
        properties: {
          message: { type: 'string', description: expect.stringContaining('Connected to Quarry as') },
          orgSlug: { type: 'string', description: 'Slug of the organization the token belongs to.' },
          userEmail: { type: 'string', description: 'Email of the user the token belongs to.' },
          userName: { type: 'string', description: 'Display name of the user the token belongs to.' },
        },
        required: ['message', 'orgSlug', 'userEmail', 'userName'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      rpc: {
        service: 'quarry.identity.v1.IdentityService',
        method: 'Ping',
        path: '/quarry.identity.v1.IdentityService/Ping',
      },
      liveness: true,
    });
  });

  it('marks no other tool as a liveness check', () => {
    expect(toolCatalogue.filter((tool) => tool.liveness).map((tool) => tool.name)).toEqual(['ping']);
  });

  it('publishes exactly these tools: ping, the plan engine tools, the artifact and search tools (search and fetch as ChatGPT reads them, import_document, import_url, the entity graph), extract_data, submit_extraction, verify_citations, submit_citation_verdicts', () => {
    expect(toolCatalogue.map((tool) => tool.name)).toEqual([
      'archive_plan',
      'cancel_plan',
      'create_research_plan',
      'delete_artifact',
      'delete_plan',
      'delete_research_output',
      'extract_data',
      'fetch',
      'get_artifact',
      'get_entity_graph',
      'get_extraction',
      'get_extraction_job',
      'get_next_step',
      'get_plan_status',
      'get_research_context',
      'get_research_output',
      'get_step_context',
      'import_document',
      'import_url',
      'list_active_plans',
      'list_artifacts',
      'list_plans',
      'list_research_outputs',
      'list_tags',
      'log_skill_execution',
      'modify_plan',
      'ping',
      'request_user_review',
      'search',
      'search_sources',
      'store_research',
      'store_research_batch',
      'store_research_output',
      'submit_citation_verdicts',
      'submit_extraction',
      'submit_research_feedback',
      'submit_step_result',
      'submit_subagent_report',
      'submit_user_decision',
      'unarchive_plan',
      'update_artifact_tags',
      'upsert_entities',
      'verify_citations',
    ]);
  });

  it('marks exactly the tools that change nothing as read-only, and modify_plan, cancel_plan and the deletions as destructive', () => {
    const flagged = (hint: 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint') =>
      toolCatalogue.filter((tool) => tool.annotations[hint]).map((tool) => tool.name);
    // get_research_context writes session_resumed when given a sessionId, so it is not read-only:
    // the gateway must confirm the caller's token before it runs (ADR 0016).
    expect(flagged('readOnlyHint')).toEqual([
      'fetch',
      'get_artifact',
      'get_entity_graph',
      'get_extraction',
      'get_extraction_job',
      'get_plan_status',
      'get_research_output',
      'get_step_context',
      'list_active_plans',
      'list_artifacts',
      'list_plans',
      'list_research_outputs',
      'list_tags',
      'ping',
      'search',
      'search_sources',
    ]);
    expect(flagged('destructiveHint')).toEqual([
      'cancel_plan',
      'delete_artifact',
      'delete_plan',
      'delete_research_output',
      'modify_plan',
    ]);
    // Read tools, plus the writes a retry with the same arguments leaves as they were.
    expect(flagged('idempotentHint')).toEqual(
      [
        ...flagged('readOnlyHint'),
        'archive_plan',
        'cancel_plan',
        'submit_citation_verdicts',
        'submit_extraction',
        'submit_step_result',
        'unarchive_plan',
        'update_artifact_tags',
        'delete_artifact',
        'delete_plan',
        'delete_research_output',
        // The same bytes again answer the same document.
        'import_document',
        // The same entities and relations again change nothing (same ids).
        'upsert_entities',
      ].sort(),
    );
    // import_url is not idempotent: the page may have changed since (then it is a new document).
    // It is the one tool that reaches outside Quarry.
    expect(flagged('openWorldHint')).toEqual(['import_url']);
  });

  it('names every tool in snake_case, at most 64 characters, each name once, sorted', () => {
    const names = toolCatalogue.map((tool) => tool.name);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
  });

  it('is deeply frozen', () => {
    const ping = toolCatalogue.find((tool) => tool.name === 'ping')!;
    expect(Object.isFrozen(toolCatalogue)).toBe(true);
    expect(Object.isFrozen(ping)).toBe(true);
    expect(Object.isFrozen(ping.outputSchema.properties)).toBe(true);
    expect(Object.isFrozen(ping.outputSchema.required)).toBe(true);
    expect(() => {
      (ping as { name: string }).name = 'pong';
    }).toThrow(TypeError);
  });

  it('gives every tool input and output schemas that compile under Ajv strict mode', () => {
    const ajv = strictAjv();
    for (const tool of toolCatalogue) {
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema)).not.toThrow();
    }
  });

  it("gives every tool an output schema that accepts the codec's result for a default response", () => {
    const ajv = strictAjv();
    for (const tool of toolCatalogue) {
      const result = createToolCodec(tool).decodeResponse(new Uint8Array());
      const validate = ajv.compile(tool.outputSchema);
      expect({ tool: tool.name, valid: validate(result), errors: validate.errors }).toEqual({
        tool: tool.name,
        valid: true,
        errors: null,
      });
    }
  });

  it('points every tool at a unary method in the embedded descriptor set', () => {
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
    for (const tool of toolCatalogue) {
      const method = registry.getService(tool.rpc.service)?.methods.find((m) => m.name === tool.rpc.method);
      expect(method?.methodKind).toBe('unary');
      expect(tool.rpc.path).toBe(`/${tool.rpc.service}/${tool.rpc.method}`);
    }
  });
});

describe('the generated gRPC code', () => {
  const ping = toolCatalogue.find((tool) => tool.name === 'ping')!;

  it('is re-exported per proto package, with the same method path as the catalogue', () => {
    expect(identityV1.protobufPackage).toBe('quarry.identity.v1');
    expect(identityV1.IdentityServiceService.ping.path).toBe(ping.rpc.path);
    expect(identityV1.IdentityServiceService.ping.requestStream).toBe(false);
  });

  it('is re-exported for every proto package with a service, as <name>V<n> (quarry.identity.v1 → identityV1)', () => {
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
    const packages = [...registry.files].filter((file) => file.services.length > 0).map((file) => file.proto.package);
    expect(packages.length).toBeGreaterThan(0);
    for (const pkg of packages) {
      const [, name, version] = /^quarry\.(\w+)\.(v\d+)$/.exec(pkg) ?? [];
      const namespace = (contracts as Record<string, unknown>)[`${name}${version?.toUpperCase()}`];
      expect({
        pkg,
        protobufPackage: (namespace as { protobufPackage?: string } | undefined)?.protobufPackage,
      }).toEqual({ pkg, protobufPackage: pkg });
    }
  });

  it('speaks the same wire format as the tool codec', () => {
    const codec = createToolCodec(ping);
    const request = identityV1.PingRequest.decode(codec.encodeRequest({}));
    expect(request).toEqual({});

    const reply = identityV1.PingResponse.encode({
      message: 'Connected to Quarry as Ada Lovelace (ada@example.org).',
      orgSlug: 'default',
      userEmail: 'ada@example.org',
      userName: 'Ada Lovelace',
    }).finish();
    expect(codec.decodeResponse(reply)).toEqual({
      message: 'Connected to Quarry as Ada Lovelace (ada@example.org).',
      orgSlug: 'default',
      userEmail: 'ada@example.org',
      userName: 'Ada Lovelace',
    });
  });
});
