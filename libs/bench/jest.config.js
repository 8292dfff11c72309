import preset from '../../jest.preset.js';

export default { ...preset, testTimeout: 60_000 };
