import { describe, expect, it } from 'vitest';
import { addressKind, embeddedIPv4, sameAddress } from '../../../src/runtime/containment/address.js';

describe('addressKind', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['140.82.112.3', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['::127.0.0.1', 'reserved'],
    // IPv4 behind a translator: SIIT's IPv4-translated form, and the local-use NAT64 prefix (RFC 8215), whose layout the operator picks
    ['::ffff:0:7f00:1', 'reserved'],
    ['::ffff:0:169.254.169.254', 'reserved'],
    ['64:ff9b:1::a9fe:a9fe', 'reserved'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each(['example.com', 'localhost', '999.1.1.1', ''])('%s is not an IP', (text) => {
    expect(addressKind(text)).toBeUndefined();
  });
});

describe('embeddedIPv4 and sameAddress', () => {
  it.each([
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['64:ff9b::808:808', '8.8.8.8'],
    ['2002:0a00:0001::1', '10.0.0.1'],
    ['2606:4700::1', undefined],
  ])('%s carries %s', (v6, v4) => {
    expect(embeddedIPv4(v6)).toBe(v4);
  });

  it.each([
    ['::1', '0:0::1', true],
    ['10.0.0.1', '10.0.0.1', true],
    ['10.0.0.1', '10.0.0.2', false],
    ['10.0.0.1', '::ffff:10.0.0.1', false],
    ['host', 'host', false],
  ])('sameAddress(%s, %s) is %s', (a, b, same) => {
    expect(sameAddress(a, b)).toBe(same);
  });
});
