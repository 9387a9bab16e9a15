/**
 * Stacks identifiers as the service accepts them. The patterns mirror the ones
 * the service publishes in @hirosystems/chainhooks-client's schemas.
 */
import { z } from 'zod';

import { UUID_PATTERN } from './constants';

const C32 = '[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}';
const CLARITY_NAME = '[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}';

export const addressSchema = z
	.string()
	.regex(new RegExp(`^${C32}$`), 'must be a Stacks address such as SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7');

export const contractIdentifierSchema = z
	.string()
	.regex(
		new RegExp(`^${C32}\\.${CLARITY_NAME}$`),
		'must be a contract identifier such as SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-contract',
	);

export const principalSchema = z.union([addressSchema, contractIdentifierSchema], {
	errorMap: () => ({
		message: 'must be a Stacks address (SP…/ST…) or a contract identifier (ADDRESS.contract-name)',
	}),
});

export const assetIdentifierSchema = z
	.string()
	.regex(
		new RegExp(`^${C32}\\.${CLARITY_NAME}::${CLARITY_NAME}$`),
		'must be an asset identifier such as SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-token::token',
	);

export const uuidSchema = z.string().regex(new RegExp(UUID_PATTERN), 'must be a UUID');
