'use strict';

// Stands in for `cookie` under Jest (see jest.config.js). light-my-request needs it only to
// encode inject()'s `cookies` option, which the gateway's tests never pass (the gateway reads
// no cookies): a test that does gets this error instead of a silently wrong request.
module.exports = {
  stringifySetCookie() {
    throw new Error('inject({ cookies }) is not available under Jest: send a `cookie` header instead.');
  },
};
