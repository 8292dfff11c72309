import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@quarry/config';
import { loadArtifactStoreConfig, urlImportOptionsFrom } from '../src/config.js';

// The artifact store's settings for import_url (ADR 0057): public targets only unless the
// operator says otherwise, and an allowance that is not a host, an address or a CIDR stops the
// service at start-up.

const REQUIRED = {
  QUARRY_IDENTITY_KEY: 'k'.repeat(40),
  DATABASE_URL: 'postgres://app@127.0.0.1/quarry',
  PLAN_ENGINE_ADDRESS: '127.0.0.1:50051',
};

describe("import_url's settings", () => {
  it('default to public targets only, 32 MiB, 30 s and 5 redirects', () => {
    expect(urlImportOptionsFrom(loadArtifactStoreConfig(REQUIRED))).toEqual({
      allowPrivate: false,
      allow: [],
      maxBytes: 32 * 1024 * 1024,
      timeoutMs: 30_000,
      maxRedirects: 5,
    });
  });

  it('read the allowances and limits an operator sets', () => {
    const config = loadArtifactStoreConfig({
      ...REQUIRED,
      QUARRY_IMPORT_URL_ALLOW_PRIVATE: 'true',
      QUARRY_IMPORT_URL_ALLOW: 'wiki.internal, 10.20.0.0/16,fd00:1::/32',
      QUARRY_IMPORT_URL_MAX_BYTES: '1048576',
      QUARRY_IMPORT_URL_TIMEOUT: '5s',
      QUARRY_IMPORT_URL_MAX_REDIRECTS: '2',
    });
    expect(urlImportOptionsFrom(config)).toEqual({
      allowPrivate: true,
      allow: ['wiki.internal', '10.20.0.0/16', 'fd00:1::/32'],
      maxBytes: 1048576,
      timeoutMs: 5000,
      maxRedirects: 2,
    });
    expect(Object.isFrozen(config.QUARRY_IMPORT_URL_ALLOW)).toBe(true);
  });

  it.each([
    [
      'an allowance that is no host, address or CIDR',
      { QUARRY_IMPORT_URL_ALLOW: 'http://wiki/' },
      'QUARRY_IMPORT_URL_ALLOW',
    ],
    ['a CIDR past its address length', { QUARRY_IMPORT_URL_ALLOW: '10.0.0.0/40' }, 'QUARRY_IMPORT_URL_ALLOW'],
    ['a flag that is not one', { QUARRY_IMPORT_URL_ALLOW_PRIVATE: 'maybe' }, 'QUARRY_IMPORT_URL_ALLOW_PRIVATE'],
    ['too many redirects', { QUARRY_IMPORT_URL_MAX_REDIRECTS: '50' }, 'QUARRY_IMPORT_URL_MAX_REDIRECTS'],
    ['a timeout that is no duration', { QUARRY_IMPORT_URL_TIMEOUT: 'soon' }, 'QUARRY_IMPORT_URL_TIMEOUT'],
  ])('refuse %s at start-up', (_what, setting, variable) => {
    expect(() => loadArtifactStoreConfig({ ...REQUIRED, ...setting })).toThrow(ConfigError);
    expect(() => loadArtifactStoreConfig({ ...REQUIRED, ...setting })).toThrow(variable);
  });
});
