import preset from '../../jest.preset.js';

// The smoke test runs every phase of the harness at smoke sizes: ≈ 3 minutes on CI, over 5 on a
// 2-core box other work loads. The timeout only catches a hang.
export default { ...preset, testTimeout: 600_000 };
