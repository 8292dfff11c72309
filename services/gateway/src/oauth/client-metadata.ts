import { type ClientMetadata, errors } from 'oidc-provider';
import { type ApplicationType, inferApplicationType, redirectUriProblem } from './redirect-uris.js';

/**
 * What a client's `application_type` is before Quarry has looked at it. oidc-provider fills in
 * `clientDefaults` before any hook sees the metadata, and its own default (`web`) would hide
 * whether the client sent one; this value, which no client has a reason to send, lets the hook
 * below tell "sent none" apart and infer it instead.
 */
export const APPLICATION_TYPE_UNSET = 'unset' as ApplicationType;

/**
 * oidc-provider's `extraClientMetadata`, its documented hook for checking and changing a client's
 * metadata before its own validation runs. It runs for every client it builds: registered ones,
 * metadata documents, stored ones read back, service accounts. It infers `application_type`
 * when the client sent none (RFC 8252: native for private-use schemes and loopback redirects,
 * which oidc-provider then matches on any loopback port), and refuses every unusable redirect
 * URI with a reason that names it.
 */
export const clientMetadataRules = {
  properties: ['application_type'],
  validator(_ctx: unknown, key: string, _value: unknown, metadata: ClientMetadata) {
    if (key !== 'application_type') return;
    const uris = Array.isArray(metadata.redirect_uris)
      ? metadata.redirect_uris.filter((uri): uri is string => typeof uri === 'string')
      : [];
    const target = metadata as { application_type?: string };
    if (target.application_type === undefined || target.application_type === APPLICATION_TYPE_UNSET)
      target.application_type = inferApplicationType(uris);
    // Anything else is oidc-provider's to refuse (an unknown type, a list that is no list).
    if (target.application_type !== 'web' && target.application_type !== 'native') return;
    for (const uri of uris) {
      const problem = redirectUriProblem(uri, target.application_type);
      if (problem) throw new errors.InvalidClientMetadata(problem);
    }
  },
};
