import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { clientAddressing, parseTrustedProxy } from '../src/http/client-address.js';

/** Units of http/client-address.ts: which address a request counts against, with and without trusted proxies. */

function request(peer: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

test('without a trusted proxy the peer is the client, whatever the headers say', () => {
  const { clientAddress, trustsPeer } = clientAddressing(undefined);
  assert.equal(clientAddress(request('127.0.0.1', { 'x-forwarded-for': '10.0.0.1' })), '127.0.0.1');
  assert.equal(trustsPeer('127.0.0.1'), false);
});

test('a trusted peer: the rightmost forwarded address that is not itself trusted', () => {
  const { clientAddress, trustsPeer } = clientAddressing({ trust: ['127.0.0.1', '10.1.0.0/16'] });
  assert.equal(trustsPeer('127.0.0.1'), true);
  assert.equal(trustsPeer('192.0.2.1'), false);
  // A client that writes its own X-Forwarded-For gets it appended to, never believed.
  assert.equal(clientAddress(request('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.1.2.3' })), '203.0.113.9');
  assert.equal(clientAddress(request('127.0.0.1')), '127.0.0.1');
  // An untrusted peer's header is ignored.
  assert.equal(clientAddress(request('192.0.2.1', { 'x-forwarded-for': '203.0.113.9' })), '192.0.2.1');
});

test('a number of hops trusts that many proxies nearest the server', () => {
  const { clientAddress } = clientAddressing({ trust: 2 });
  assert.equal(clientAddress(request('10.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.2' })), '203.0.113.9');
  assert.equal(clientAddress(request('10.0.0.1', { 'x-forwarded-for': '203.0.113.9' })), '203.0.113.9');
});

test('the Forwarded header (RFC 7239) when chosen; a malformed one names nobody', () => {
  const { clientAddress } = clientAddressing({ trust: ['loopback'], header: 'forwarded' });
  const forwarded = 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https';
  assert.equal(clientAddress(request('127.0.0.1', { forwarded })), '2001:db8:cafe::17');
  assert.equal(clientAddress(request('127.0.0.1', { forwarded: 'for="203.0.113.9:8080"' })), '203.0.113.9');
  assert.equal(clientAddress(request('127.0.0.1', { forwarded: 'for="unclosed' })), '127.0.0.1');
  // X-Forwarded-For is not read when Forwarded is the configured header.
  assert.equal(clientAddress(request('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })), '127.0.0.1');
});

test('--trusted-proxy values', () => {
  assert.deepEqual(parseTrustedProxy('1'), { trust: 1 });
  assert.deepEqual(parseTrustedProxy('10.0.0.0/8, loopback'), { trust: ['10.0.0.0/8', 'loopback'] });
  assert.ok('error' in parseTrustedProxy('not-an-address'));
  assert.ok('error' in parseTrustedProxy(' , '));
});
