/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** n8n's HTTPS certificate: self-signed, made with the `selfsigned` package. */
import * as fs from 'fs';
import * as path from 'path';

import { generate } from 'selfsigned';

export interface TlsPair {
	key: string;
	cert: string;
	keyPath: string;
	certPath: string;
}

/**
 * A self-signed certificate for 127.0.0.1, ::1 and localhost, CA:TRUE so that a client can
 * trust it as its own CA (`ca`), kept in `<dir>/key.pem` and `<dir>/cert.pem` and reused.
 */
export async function selfSignedPair(dir: string): Promise<TlsPair> {
	const keyPath = path.join(dir, 'key.pem');
	const certPath = path.join(dir, 'cert.pem');
	if (!fs.existsSync(keyPath) || !fs.existsSync(certPath)) {
		const notAfterDate = new Date(Date.now() + 3650 * 24 * 3600_000);
		const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
			algorithm: 'sha256',
			notAfterDate,
			extensions: [
				{ name: 'basicConstraints', cA: true, critical: true },
				{ name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
				{ name: 'extKeyUsage', serverAuth: true },
				{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }, { type: 2, value: 'localhost' }] },
			],
		});
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(keyPath, pems.private, { mode: 0o600 });
		fs.writeFileSync(certPath, pems.cert);
	}
	return { key: fs.readFileSync(keyPath, 'utf8'), cert: fs.readFileSync(certPath, 'utf8'), keyPath, certPath };
}
