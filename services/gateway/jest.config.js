import preset, { withPostgres } from '../../jest.preset.js';

export default withPostgres({
  ...preset,
  moduleNameMapper: {
    ...preset.moduleNameMapper,
    // fastify's inject() (light-my-request) requires cookie 2, which ships as ESM only: Node loads
    // it with require(esm), Jest's module runtime cannot. See test/cookie-shim.cjs.
    '^cookie$': '<rootDir>/test/cookie-shim.cjs',
  },
});
