import { describe, expect, it } from '@jest/globals';
import {
  addressRule,
  allowEntry,
  blockedAddress,
  checkTargetUrl,
  literalAddress,
  PUBLIC_ONLY,
  targetPolicy,
} from '../src/core/url-targets.js';

// import_url's address classification (ADR 0057), as a table: a URL's host as the WHATWG URL
// parser normalizes it (decimal, octal and hex IPv4 notations become dotted quads, IPv6 is
// compressed), then the rule that refuses it by default, or none for a public address.

/** The rule that refuses `url`'s host (a literal address), or null when it is public. */
function ruleOfUrl(url: string): string | null {
  const checked = checkTargetUrl(url);
  if ('blocked' in checked) throw new Error(`${url} is refused before its address: ${checked.blocked.rule}`);
  const address = literalAddress(checked.url.hostname);
  if (!address) throw new Error(`${url} has no literal address`);
  return blockedAddress(address, checked.url.hostname, PUBLIC_ONLY)?.rule ?? null;
}

describe('the address classification', () => {
  it.each([
    // IPv4, dotted
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.255.0.9/', 'loopback'],
    ['http://10.1.2.3/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://169.254.10.10/', 'link-local'],
    ['http://100.64.0.1/', 'carrier-grade-nat'],
    ['http://100.127.255.254/', 'carrier-grade-nat'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://239.255.255.250/', 'multicast'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://192.0.2.1/', 'reserved'],
    // IPv4 in other notations: the URL parser turns each into a dotted quad first
    ['http://2130706433/', 'loopback'], // decimal 127.0.0.1
    ['http://0x7f000001/', 'loopback'], // hex
    ['http://0x7f.0.0.1/', 'loopback'], // hex first part
    ['http://017700000001/', 'loopback'], // octal
    ['http://0177.0.0.01/', 'loopback'], // octal parts
    ['http://127.1/', 'loopback'], // shortened
    ['http://0xa9fea9fe/', 'metadata'], // hex 169.254.169.254
    ['http://2852039166/', 'metadata'], // decimal 169.254.169.254
    ['http://012.0.0.1/', 'private'], // octal 10.0.0.1
    ['http://0/', 'unspecified'],
    // IPv6 forms
    ['http://[::1]/', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://[::]/', 'unspecified'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[fd12:3456::1]/', 'unique-local'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[FD00:EC2:0:0:0:0:0:254]/', 'metadata'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://[::ffff:127.0.0.1]/', 'ipv4-mapped'],
    ['http://[::ffff:7f00:1]/', 'ipv4-mapped'],
    ['http://[::ffff:169.254.169.254]/', 'ipv4-mapped'],
    ['http://[::ffff:8.8.8.8]/', 'ipv4-mapped'],
    ['http://[64:ff9b::a00:1]/', 'rfc6052'], // NAT64 of 10.0.0.1
    ['http://[2002:7f00:1::]/', '6to4'], // 6to4 of 127.0.0.1
    // public
    ['http://93.184.215.14/', null],
    ['http://8.8.8.8:8080/', null],
    ['http://1.1.1.1/', null],
    ['http://[2606:4700:4700::1111]/', null],
    ['http://[2a00:1450:4001:80b::200e]/', null],
    ['http://134744072/', null], // decimal 8.8.8.8
  ])('%s → %s', (url, rule) => {
    expect(ruleOfUrl(url)).toBe(rule);
  });

  it('explains each refusal in words', () => {
    expect(addressRule('10.0.0.1')?.explanation).toMatch(/private network/);
    expect(addressRule('169.254.169.254')?.explanation).toMatch(/metadata/);
    expect(addressRule('::ffff:10.0.0.1')?.explanation).toMatch(/IPv4-mapped/);
  });

  it('takes only absolute http(s) URLs without credentials', () => {
    const ruleOf = (url: string) => {
      const checked = checkTargetUrl(url);
      return 'blocked' in checked ? checked.blocked.rule : null;
    };
    expect(ruleOf('file:///etc/passwd')).toBe('scheme');
    expect(ruleOf('ftp://example.org/a.pdf')).toBe('scheme');
    expect(ruleOf('gopher://127.0.0.1:6379/_INFO')).toBe('scheme');
    expect(ruleOf('javascript:alert(1)')).toBe('scheme');
    expect(ruleOf('http://user:secret@example.org/')).toBe('credentials');
    expect(ruleOf('https://user@example.org/')).toBe('credentials');
    expect(ruleOf('/relative/path')).toBe('invalid-url');
    expect(ruleOf('https://example.org/paper.pdf')).toBeNull();
    expect(ruleOf('HTTP://EXAMPLE.ORG/')).toBeNull();
  });

  it('reads host names as host names, not addresses', () => {
    expect(literalAddress('example.org')).toBeUndefined();
    expect(literalAddress('127.0.0.1.nip.io')).toBeUndefined();
    expect(literalAddress('[::1]')).toBe('::1');
    expect(literalAddress('10.0.0.1')).toBe('10.0.0.1');
  });
});

describe("the operator's allowances", () => {
  it('QUARRY_IMPORT_URL_ALLOW_PRIVATE lifts the ranges, but not the metadata endpoints', () => {
    const open = targetPolicy(true, []);
    for (const address of ['127.0.0.1', '10.0.0.1', '::1', 'fc00::1', '::ffff:10.0.0.1', '100.64.0.1'])
      expect(blockedAddress(address, 'intranet', open)).toBeUndefined();
    expect(blockedAddress('169.254.169.254', 'x', open)?.rule).toBe('metadata');
    expect(blockedAddress('fd00:ec2::254', 'x', open)?.rule).toBe('metadata');
  });

  it('QUARRY_IMPORT_URL_ALLOW names hosts, addresses and CIDRs, and only those', () => {
    const policy = targetPolicy(false, [
      'wiki.internal',
      '10.20.0.0/16',
      '127.0.0.1',
      'fd00:1::/32',
      '169.254.169.254',
    ]);
    expect(blockedAddress('10.0.0.5', 'wiki.internal', policy)).toBeUndefined();
    expect(blockedAddress('10.0.0.5', 'WIKI.internal', policy)).toBeUndefined();
    expect(blockedAddress('10.20.3.4', 'other.internal', policy)).toBeUndefined();
    expect(blockedAddress('10.21.3.4', 'other.internal', policy)?.rule).toBe('private');
    expect(blockedAddress('127.0.0.1', 'localhost', policy)).toBeUndefined();
    expect(blockedAddress('127.0.0.2', 'localhost', policy)?.rule).toBe('loopback');
    expect(blockedAddress('fd00:1::9', 'v6.internal', policy)).toBeUndefined();
    expect(blockedAddress('fd00:2::9', 'v6.internal', policy)?.rule).toBe('unique-local');
    expect(blockedAddress('169.254.169.254', 'metadata', policy)).toBeUndefined();
  });

  it('refuses entries that are none of those', () => {
    expect(allowEntry('10.0.0.0/33')).toBeUndefined();
    expect(allowEntry('not a host')).toBeUndefined();
    expect(allowEntry('[::1]')).toMatchObject({ range: [expect.anything(), 128] });
    expect(() => targetPolicy(false, ['http://x/'])).toThrow(/not a host name/);
  });
});
