/**
 * The nodes' principal check (nodes/shared/principal.ts) against the Stacks libraries' own c32check
 * (`c32check` on npm): every address it writes is theirs, every address of theirs passes on its
 * network and fails on the other, and a changed character fails.
 */
import { c32address } from 'c32check';
import fc from 'fast-check';

import { principalProblem, stacksAddress } from '../../../nodes/shared/principal';
import { propertyParameters } from '../../support/properties';

const NETWORK_OF: Record<number, 'mainnet' | 'testnet'> = { 22: 'mainnet', 20: 'mainnet', 26: 'testnet', 21: 'testnet' };
const OTHER = { mainnet: 'testnet', testnet: 'mainnet' } as const;
const C32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A hash160, often with leading zero bytes (which c32 writes as leading 0s). */
const hash160 = fc.tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat({ max: 20 })).map(([bytes, zeros]) => {
	const buffer = Buffer.from(bytes);
	if (zeros % 3 === 0) buffer.fill(0, 0, zeros);
	return buffer;
});
const version = fc.constantFrom(22, 20, 26, 21);

describe('principal check', () => {
	it('writes the addresses c32check writes, and takes them on their network only', () => {
		fc.assert(
			fc.property(version, hash160, (v, hash) => {
				const address = stacksAddress(v, hash);
				expect(address).toBe(c32address(v, hash.toString('hex')));
				expect(principalProblem(address, NETWORK_OF[v])).toBeUndefined();
				expect(principalProblem(`${address}.my-contract_2`, NETWORK_OF[v])).toBeUndefined();
				expect(principalProblem(address, OTHER[NETWORK_OF[v]])).toMatch(new RegExp(`is a ${NETWORK_OF[v]} address; this credential is for ${OTHER[NETWORK_OF[v]]}`));
			}),
			propertyParameters(500),
		);
	});

	it('refuses an address with one character changed, naming the checksum', () => {
		fc.assert(
			fc.property(version, hash160, fc.nat(), fc.integer({ min: 1, max: 31 }), (v, hash, at, shift) => {
				const address = stacksAddress(v, hash);
				const index = 2 + (at % (address.length - 2));
				const changed = address.slice(0, index) + C32[(C32.indexOf(address[index]) + shift) % 32] + address.slice(index + 1);
				expect(principalProblem(changed, NETWORK_OF[v])).toMatch(/checksum does not match|is not a Stacks address/);
			}),
			propertyParameters(500),
		);
	});

	it.each([
		['ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM', 'testnet', undefined],
		['SP000000000000000000002Q6VF78', 'mainnet', undefined],
		['ST000000000000000000002AMW42H', 'testnet', undefined],
		['ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGN', 'testnet', /checksum does not match/],
		['st1pqhqkv0rjxzfy1dgx8mnsnyve3vgzjsrtpgzgm', 'testnet', /is not a Stacks address \(S, then/],
		['ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.1bad', 'testnet', /contract name that is not valid/],
		['SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7', 'testnet', /is a mainnet address; this credential is for testnet \(ST or SN…\)/],
		['hello', 'testnet', /is not a Stacks address/],
	] as const)('%s on %s', (principal, network, problem) => {
		if (problem === undefined) expect(principalProblem(principal, network)).toBeUndefined();
		else expect(principalProblem(principal, network)).toMatch(problem);
	});
});
