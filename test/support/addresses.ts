/** Testnet addresses made up for tests, one for each number, as the Stacks libraries' c32check writes them (not the nodes' own encoder). */
import { c32address } from 'c32check';

/** The testnet single-signature address whose hash160 is `n`. */
export const testnetAddress = (n: number) => c32address(26, n.toString(16).padStart(40, '0'));
