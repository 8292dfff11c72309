// @quarry/config: typed, frozen configuration that fails fast, and the fields every service
// shares, defined once.
import { z } from 'zod';

export { z };
export { ConfigError, loadConfig } from './load.js';
export { env, parseDuration } from './fields.js';
export {
  DEFAULT_PORTS,
  databaseUrlField,
  grpcServiceFields,
  grpcServiceOptionsFrom,
  identityKeyField,
  processFields,
  serviceFields,
  type ServiceTokenIssuer,
} from './service-fields.js';
export { explainBindError, PortInUseError } from './bind-error.js';
