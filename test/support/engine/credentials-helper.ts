/**
 * The ICredentialsHelper the engine harness hands n8n-core, serving credential data from a map.
 *
 * n8n's own implementation is the CLI's CredentialsHelper (packages/cli/src/credentials-helper.ts),
 * which needs n8n's DI container and database, and neither n8n-core nor n8n-workflow exports one.
 * This mirrors only the parts this package's credential (no `extends`, no OAuth, no
 * preAuthentication) goes through: the type's property defaults added to the stored data
 * (`applyDefaultsAndOverwrites`, without overwrites or expressions in stored values) and a
 * generic `authenticate`, its values resolved by the workflow's expression engine with
 * `$credentials` being the data.
 */
import { ICredentialsHelper, NodeHelpers, UnexpectedError } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	IHttpRequestOptions,
	INode,
	INodeParameters,
	INodeProperties,
	Workflow,
} from 'n8n-workflow';

/** Decrypted data per credential type name. */
export interface CredentialsMap {
	[type: string]: ICredentialDataDecryptedObject;
}

export class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: ICredentialType[],
		private readonly data: CredentialsMap,
	) {
		super();
	}

	private type(name: string): ICredentialType {
		const type = this.types.find((candidate) => candidate.name === name);
		if (type === undefined) throw new UnexpectedError(`Credential type "${name}" was not given to the harness`);
		return type;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(name: string): INodeProperties[] {
		return this.type(name).properties;
	}

	async getDecrypted(_additionalData: unknown, _details: unknown, name: string): Promise<ICredentialDataDecryptedObject> {
		const stored = this.data[name];
		if (stored === undefined) throw new UnexpectedError(`No credentials of type "${name}" were given to the harness`);
		return withDefaults(this.type(name), stored);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		name: string,
		requestOptions: IHttpRequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.type(name);
		if (authenticate === undefined) return requestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (workflow === undefined || node === undefined) throw new UnexpectedError('authenticate needs the workflow and node');
		// As the CLI: every key and value of every part (headers, qs, ...) resolved, '' when empty.
		const resolve = (value: string) =>
			String(workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials }, undefined, '') || '');
		const target = requestOptions as unknown as Record<string, Record<string, unknown> | undefined>;
		for (const [part, entries] of Object.entries(authenticate.properties)) {
			const bucket = (target[part] ??= {});
			for (const [key, value] of Object.entries(entries as Record<string, string>)) bucket[resolve(key)] = resolve(value);
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new UnexpectedError('getCredentials (stored, encrypted credentials) is not supported by the harness');
	}

	async updateCredentials(): Promise<void> {
		throw new UnexpectedError('updateCredentials is not supported by the harness');
	}

	async updateCredentialsOauthTokenData(): Promise<void> {
		throw new UnexpectedError('updateCredentialsOauthTokenData is not supported by the harness');
	}
}

/** The stored values over the defaults of the type's properties, as n8n's credential dialog and CLI give them to nodes. */
export function withDefaults(type: ICredentialType, stored: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	return (NodeHelpers.getNodeParameters(type.properties, stored as INodeParameters, true, false, null, null) ??
		{}) as ICredentialDataDecryptedObject;
}
