/**
 * Whether a text is a real Stacks principal of a network: a standard address (`S` + version +
 * c32 of its hash160 and checksum) or a contract identifier (such an address, `.`, a contract name).
 * The service's schemas check only the characters (identifiers.ts); a mistyped character passes
 * them, and the hook then watches an address nobody owns. The checksum catches it: c32check, as the
 * Stacks libraries write it (`c32check` on npm, which the tests compare with), here by hand because
 * a verified community node may not ship runtime dependencies.
 */
import { createHash } from 'crypto';

import type { Network } from './constants';

const C32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CLARITY_NAME = /^[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}$/;

/** The address versions of each network: single-signature first, then multi-signature. */
const VERSIONS: Record<Network, readonly number[]> = { mainnet: [22, 20], testnet: [26, 21] };
const PREFIXES: Record<Network, string> = { mainnet: 'SP or SM', testnet: 'ST or SN' };

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

/**
 * The c32 digits of `bytes`, one `0` for each leading zero byte, as c32check writes them. Five bits
 * at a time from the last byte, with no BigInt: a block of prints holds many principals
 * (clarity/binary.ts), and a BigInt division a digit took most of a print's read.
 */
function c32encode(bytes: Buffer): string {
	let digits = '';
	let carry = 0;
	let bits = 0;
	for (let i = bytes.length - 1; i >= 0; i--) {
		carry |= bytes[i] << bits;
		bits += 8;
		while (bits >= 5) {
			digits = C32[carry & 31] + digits;
			carry >>>= 5;
			bits -= 5;
		}
	}
	if (bits > 0) digits = C32[carry & 31] + digits;
	let zeros = 0;
	while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
	return '0'.repeat(zeros) + digits.replace(/^0+/, '');
}

/**
 * Addresses already written, by their version and hash160 (as 21 latin1 characters). The checksum
 * takes two SHA-256 hashes, most of a principal's read from a value's binary form, and a block names
 * the same principals again and again. Pure and bounded: emptied when it holds 1,024.
 */
const written = new Map<string, string>();
const WRITTEN_MAX = 1024;

/** The address of a version and a 20-byte hash160, with its checksum. */
export function stacksAddress(version: number, hash160: Buffer): string {
	const key = String.fromCharCode(version) + hash160.toString('latin1');
	const known = written.get(key);
	if (known !== undefined) return known;
	const checksum = sha256(sha256(Buffer.concat([Buffer.from([version]), hash160]))).subarray(0, 4);
	const address = `S${C32[version]}${c32encode(Buffer.concat([hash160, checksum]))}`;
	if (written.size >= WRITTEN_MAX) written.clear();
	written.set(key, address);
	return address;
}

/** The version and hash160 an address's characters spell, or undefined when they spell none. */
function decode(address: string): { version: number; hash160: Buffer } | undefined {
	if (address.length < 5 || address[0] !== 'S') return undefined;
	const version = C32.indexOf(address[1]);
	const body = address.slice(2);
	if (version < 0 || [...body].some((char) => !C32.includes(char))) return undefined;
	let value = 0n;
	for (const char of body) value = value * 32n + BigInt(C32.indexOf(char));
	const zeros = /^0*/.exec(body)![0].length;
	let hex = value === 0n ? '' : value.toString(16);
	if (hex.length % 2) hex = `0${hex}`;
	const bytes = Buffer.concat([Buffer.alloc(zeros), Buffer.from(hex, 'hex')]);
	if (bytes.length !== 24) return undefined;
	return { version, hash160: bytes.subarray(0, 20) };
}

/**
 * Why `principal` is not a principal of `network`, in words a user can act on; undefined when it is one.
 * Checked: the characters, the checksum (a mistyped character), the network (SP/SM on mainnet, ST/SN on
 * testnet) and, for a contract, its name.
 */
export function principalProblem(principal: string, network: Network): string | undefined {
	const dot = principal.indexOf('.');
	const address = dot < 0 ? principal : principal.slice(0, dot);
	if (dot >= 0 && !CLARITY_NAME.test(principal.slice(dot + 1))) {
		return 'has a contract name that is not valid (a letter, then up to 39 letters, digits, - or _)';
	}
	const decoded = decode(address);
	if (!decoded || stacksAddress(decoded.version, decoded.hash160) !== address) {
		return /^S[0-9A-HJKMNP-TV-Z]+$/.test(address) && address.length >= 28 && address.length <= 41
			? 'is not a Stacks address: its checksum does not match (a character mistyped?)'
			: 'is not a Stacks address (S, then 27 to 40 of the characters 0-9 and A-Z without I, L, O and U)';
	}
	if (!VERSIONS[network].includes(decoded.version)) {
		const other = (Object.keys(VERSIONS) as Network[]).find((candidate) => VERSIONS[candidate].includes(decoded.version));
		return other ? `is a ${other} address; this credential is for ${network} (${PREFIXES[network]}…)` : 'has an address version of no network';
	}
	return undefined;
}
