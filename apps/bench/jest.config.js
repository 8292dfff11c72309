import preset from '../../jest.preset.js';

export default { ...preset, testTimeout: 240_000 };
