/* eslint-disable @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Clarity values as the service sends them: the binary form, serialized by the Stacks libraries
 * (@stacks/transactions), and the repr as the service prints it when a hook asks it to decode,
 * printed by Hiro's own decoder (stacks-encoding-native-js, the Stacks node's printer).
 */
import { Cl } from '@stacks/transactions';
import { decodeClarityValueToRepr } from 'stacks-encoding-native-js';

export interface ClarityPair {
	hex: string;
	repr: string;
}

const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

/**
 * A value given as its repr (`(tuple (event "mint") (amount u100))`) or its binary form (`0x0c…`),
 * with both. The repr is Hiro's printing, so a tuple's keys come in the node's order. Throws, naming
 * the text, when it is neither.
 */
export function clarityPair(value: string): ClarityPair {
	try {
		const hex = HEX.test(value) ? value.toLowerCase() : `0x${Cl.serialize(Cl.parse(value))}`;
		return { hex, repr: decodeClarityValueToRepr(hex) };
	} catch (error) {
		throw new Error(`${JSON.stringify(value)} is neither a Clarity value's repr nor its binary form: ${error instanceof Error ? error.message : String(error)}`);
	}
}

/** The repr of a binary form, as Hiro prints it. */
export const reprOf = (hex: string): string => decodeClarityValueToRepr(hex);

/** The binary form of a list of values, as the service sends a call's arguments when it does not decode them. */
export function listHex(hexes: readonly string[]): string {
	const count = Buffer.alloc(4);
	count.writeUInt32BE(hexes.length);
	return `0x0b${count.toString('hex')}${hexes.map((hex) => hex.slice(2)).join('')}`;
}

/** The binary form of an NFT id given as a repr (`u42`). */
export const serialized = (repr: string): string => `0x${Cl.serialize(Cl.parse(repr))}`;
