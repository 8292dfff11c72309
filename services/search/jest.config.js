import preset from '../../jest.preset.js';

// No PostgreSQL here: the search library only talks to its index engines.
export default { ...preset };
