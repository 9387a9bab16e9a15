/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The example workflows of test/examples/workflows/, as `npm start` and the
 * tests import them: read from the repository (also when this file runs
 * compiled into .build/), with every Stacks Hooks credential reference pointed
 * at a real credential.
 */
import * as fs from 'fs';
import * as path from 'path';

import type { WorkflowJson } from './n8n/api';
import { EXAMPLES_DIR, PACKAGE_NAME } from './paths';

export const CREDENTIAL_TYPE = 'stacksHooksApi';
/** The name the examples give their credential; `npm start` creates one of that name. */
export const CREDENTIAL_NAME = 'Stacks Hooks API';

export const TRIGGER_TYPE = `${PACKAGE_NAME}.stacksHooksTrigger`;
export const ACTION_TYPE = `${PACKAGE_NAME}.stacksHooks`;

/** The address the examples watch, and the sender of `npm run emulate`'s transfers. */
export const EXAMPLE_SENDER = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';

export const EXAMPLES = {
	trigger: 'stx-transfers-trigger.json',
	registerAndList: 'register-and-list-hooks.json',
	rotateSecret: 'rotate-consumer-secret.json',
	evaluate: 'evaluate-hook.json',
	contractPrints: 'contract-prints-trigger.json',
	ledger: 'ledger-postgres.json',
	ledgerDataTable: 'ledger-data-table.json',
	notify: 'notify-once.json',
	actOnceFinal: 'act-once-final.json',
	depositSignup: 'deposit-addresses-signup.json',
	depositTrigger: 'deposit-addresses-trigger.json',
	depositFromTable: 'deposit-addresses-from-table.json',
} as const;

export type ExampleKey = keyof typeof EXAMPLES;

export const WORKFLOWS_DIR = path.join(EXAMPLES_DIR, 'workflows');

export interface CredentialRef {
	id: string;
	name: string;
}

/**
 * An example workflow; with `credential`, each node's Stacks Hooks credential
 * reference names it (id and name), as n8n needs the real id.
 */
export function loadExample(key: ExampleKey, credential?: CredentialRef): WorkflowJson {
	const workflow = JSON.parse(fs.readFileSync(path.join(WORKFLOWS_DIR, EXAMPLES[key]), 'utf8')) as WorkflowJson;
	if (credential) {
		for (const node of workflow.nodes) {
			const credentials = node.credentials as Record<string, CredentialRef> | undefined;
			if (credentials?.[CREDENTIAL_TYPE]) credentials[CREDENTIAL_TYPE] = { id: credential.id, name: credential.name };
		}
	}
	return workflow;
}

/** Every example, in a stable order (the trigger first). */
export function exampleKeys(): ExampleKey[] {
	return Object.keys(EXAMPLES) as ExampleKey[];
}
