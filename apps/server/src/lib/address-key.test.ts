import { describe, expect, it } from 'vitest';
import { addressKey } from './address-key';

describe('the address a rate limit counts', () => {
  it('counts IPv6 clients by their /64, however they write it', () => {
    const same = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0:0:0:abcd', '2001:db8:1:2::192.0.2.1'];
    for (const ip of same) expect(addressKey(ip)).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::')).toBe('0:0:0:0::/64');
  });

  it('keeps IPv4 (also IPv4-mapped) and anything else as it is', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey(null)).toBe('unknown');
    expect(addressKey('not:an:address')).toBe('not:an:address');
  });
});
