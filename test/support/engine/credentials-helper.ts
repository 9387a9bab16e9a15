/**
 * An in-memory ICredentialsHelper for the engine harness.
 *
 * n8n's CLI CredentialsHelper (packages/cli/src/credentials-helper.ts) reads credentials from
 * the database; this one serves decrypted data from a map, and otherwise does what the CLI does:
 * - `getDecrypted` adds the credential type's defaults (NodeHelpers.getNodeParameters) and
 *   resolves expressions in the stored values (the "applyDefaultsAndOverwrites" step);
 * - `authenticate` applies a function `authenticate` as is, and a generic one by resolving its
 *   keys and values with the Workflow's expression engine, `$credentials` being the data;
 * - `getParentTypes` / `getCredentialsProperties` follow `extends`.
 */
import { getAdditionalKeys } from 'n8n-core';
import {
	ICredentials,
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	isExpression,
} from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsEncrypted,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IVersionedNodeType,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

/** Decrypted data per credential type name. */
export interface CredentialsMap {
	[type: string]: ICredentialDataDecryptedObject;
}

/** The node the CLI uses to resolve credential expressions outside of an execution. */
const MOCK_NODE: INode = {
	id: 'harness-credential-node',
	name: '',
	type: 'mock',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

const MOCK_NODE_TYPE: INodeType = {
	description: {
		displayName: 'Mock',
		name: 'mock',
		group: [],
		version: 1,
		description: '',
		defaults: {},
		inputs: [],
		outputs: [],
		properties: [],
	},
};

const MOCK_NODE_TYPES: INodeTypes = {
	getByName: (): INodeType | IVersionedNodeType => MOCK_NODE_TYPE,
	getByNameAndVersion: (): INodeType => MOCK_NODE_TYPE,
	getKnownTypes: () => ({}),
};

function mockWorkflow(): Workflow {
	return new Workflow({
		nodes: [{ ...MOCK_NODE }],
		connections: {},
		active: false,
		nodeTypes: MOCK_NODE_TYPES,
	});
}

/** Plain, unencrypted ICredentials: what `getCredentials` hands back. */
class PlainCredentials extends ICredentials {
	private plain: ICredentialDataDecryptedObject;

	constructor(details: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject) {
		super(details, type);
		this.plain = { ...data };
	}

	async getData(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.plain };
	}

	getDataToSave(): ICredentialsEncrypted {
		return { id: this.id, name: this.name, type: this.type, data: JSON.stringify(this.plain) };
	}

	async setData(data: ICredentialDataDecryptedObject): Promise<void> {
		this.plain = { ...data };
	}

	async updateData(
		toUpdate: Partial<ICredentialDataDecryptedObject>,
		toDelete: string[] = [],
	): Promise<void> {
		const next: ICredentialDataDecryptedObject = { ...this.plain };
		for (const [key, value] of Object.entries(toUpdate)) {
			if (value !== undefined) next[key] = value;
		}
		for (const key of toDelete) delete next[key];
		this.plain = next;
	}
}

export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();

	/** Every `updateCredentials*` call, newest last (e.g. OAuth token refreshes). */
	readonly updates: Array<{ type: string; data: ICredentialDataDecryptedObject }> = [];

	constructor(
		credentialTypes: ICredentialType[] = [],
		private readonly data: CredentialsMap = {},
	) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
	}

	getCredentialType(name: string): ICredentialType | undefined {
		return this.types.get(name);
	}

	getParentTypes(name: string): string[] {
		const type = this.types.get(name);
		if (type?.extends === undefined) return [];
		const parents: string[] = [];
		for (const parent of type.extends) {
			parents.push(parent, ...this.getParentTypes(parent));
		}
		return parents;
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.types.get(credentialType);
		if (!type?.restrictToSupportedNodes) return true;
		const shortName = nodeType.split('.').pop() ?? nodeType;
		return (type.supportedNodes ?? []).some((n) => n === nodeType || n === shortName);
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.types.get(type);
		if (credentialType === undefined) return [];
		if (credentialType.extends === undefined) return credentialType.properties;
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const credentialType = this.types.get(typeName);
		if (credentialType === undefined) {
			throw new UnexpectedError(
				`Credential type "${typeName}" is not known to the harness: pass it in credentialTypes`,
			);
		}
		const { authenticate } = credentialType;
		if (authenticate === undefined) return requestOptions;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}
		if (authenticate.type !== 'generic') return requestOptions;

		const wf = workflow ?? mockWorkflow();
		const wfNode = node ?? { ...MOCK_NODE };
		requestOptions.headers ??= {};
		const target = requestOptions as unknown as Record<string, Record<string, unknown> | undefined>;
		for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
			for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
				const keyResolved = this.resolveValue(key, { $credentials: credentials }, wf, wfNode);
				const valueResolved = this.resolveValue(
					value as string,
					{ $credentials: credentials },
					wf,
					wfNode,
				);
				const bucket = (target[outerKey] ??= {});
				bucket[keyResolved] = valueResolved;
			}
		}
		return requestOptions;
	}

	/** As the CLI: non-expressions pass through; expressions resolve to a string ('' if empty). */
	private resolveValue(
		parameterValue: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(parameterValue)) return parameterValue;
		const value = workflow.expression.getSimpleParameterValue(
			node,
			parameterValue,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		if (!value) return '';
		return value.toString();
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		_node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.types.get(typeName);
		if (typeof credentialType?.preAuthentication !== 'function') return undefined;
		const expirable = credentialType.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable === undefined) return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;
		const output = (await credentialType.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;
		this.updates.push({ type: typeName, data: { ...credentials, ...output } });
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.types.get(typeName);
		if (typeof credentialType?.preAuthentication !== 'function') return undefined;
		return (await credentialType.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		return new PlainCredentials(nodeCredentials, type, this.rawData(type));
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.rawData(type);
		if (raw === true) return stored;
		return this.applyDefaults(additionalData, stored, type, mode, executeData, expressionResolveValues);
	}

	/** Defaults of the credential type, then expressions resolved (the CLI's applyDefaultsAndOverwrites, without overwrites). */
	applyDefaults(
		additionalData: IWorkflowExecuteAdditionalData,
		stored: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const properties = this.getCredentialsProperties(type);
		let data: ICredentialDataDecryptedObject =
			properties.length === 0
				? { ...stored }
				: ((NodeHelpers.getNodeParameters(
						properties,
						stored as INodeParameters,
						true,
						false,
						null,
						null,
					) ?? {}) as ICredentialDataDecryptedObject);
		if (stored.oauthTokenData !== undefined) data.oauthTokenData = stored.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				data = expressionResolveValues.workflow.expression.getParameterValue(
					data as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					data,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				if (e instanceof Error) e.message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			data = mockWorkflow().expression.getComplexParameterValue(
				{ ...MOCK_NODE },
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as ICredentialDataDecryptedObject;
		}
		return data;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.updates.push({ type, data: { ...data } });
		this.data[type] = { ...data };
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.updates.push({ type, data: { oauthTokenData: data.oauthTokenData } });
		this.data[type] = { ...this.rawData(type), oauthTokenData: data.oauthTokenData };
	}

	private rawData(type: string): ICredentialDataDecryptedObject {
		const stored = this.data[type];
		if (stored === undefined) {
			throw new UnexpectedError(`No credentials of type "${type}" were given to the harness`);
		}
		return { ...stored };
	}
}
