import preset, { withPostgres } from '../../jest.preset.js';

export default withPostgres({ ...preset });
