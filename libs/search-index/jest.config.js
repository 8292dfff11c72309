import preset from '../../jest.preset.js';

// No PostgreSQL here: the index adapters only talk to their engines.
export default { ...preset };
