import preset from '../../jest.preset.js';

// No PostgreSQL here: the search service only reads its index engines.
export default { ...preset };
