/**
 * An in-memory stand-in for n8n CLI's `CredentialsHelper`
 * (packages/cli/src/credentials-helper.ts), which n8n-core calls through
 * `additionalData.credentialsHelper` from `getCredentials()` and
 * `httpRequestWithAuthentication()`.
 *
 * Only the storage is fake (a map instead of the encrypted DB table). The parts
 * that decide what goes over the wire are ported from the CLI, same order:
 *  - getDecrypted: fills credential-type defaults (NodeHelpers.getNodeParameters)
 *    and resolves `={{ }}` values in the credential data;
 *  - authenticate: a function `authenticate` is called; a generic one has each
 *    `={{$credentials.x}}` resolved by the workflow's expression engine and
 *    written into requestOptions[headers|qs|body|auth][key];
 *  - preAuthentication: runs the type's hook when its `expirable` hidden field
 *    is empty or the token expired, and stores the result.
 * n8n's own nodes-testing helper skips generic `authenticate`; we need it,
 * because that is how a declarative credential puts Basic auth on a request.
 */
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	UserError,
	getCredentialOwnRequestAllowedDomains,
	isExpression,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type ICredentials,
	type ICredentialsExpressionResolveValues,
	type IExecuteData,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeParameters,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type INodeTypes,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { getAdditionalKeys } from 'n8n-core';

const credentialExpressionNode: INode = {
	id: 'credential-expression',
	name: '',
	type: 'mock',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const noNodeTypes: INodeTypes = {
	getByName: () => {
		throw new UnexpectedError('no node types');
	},
	getByNameAndVersion: () => {
		throw new UnexpectedError('no node types');
	},
	getKnownTypes: () => ({}),
};

/**
 * As in the CLI: requests made by a credential's `preAuthentication` hook obey
 * the credential's own allowed-domains setting.
 */
function restrictToCredentialDomains(
	helpers: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): IHttpRequestHelper {
	return {
		helpers: {
			httpRequest: async (requestOptions: IHttpRequestOptions) => {
				const allowedDomains = getCredentialOwnRequestAllowedDomains(credentials);
				if (allowedDomains === undefined) return await helpers.helpers.httpRequest(requestOptions);
				if (requestOptions.allowedDomains !== undefined) {
					throw new UserError(
						'This credential restricts requests to specific domains, which cannot be combined with the domains its authentication step asks for.',
					);
				}
				return await helpers.helpers.httpRequest({ ...requestOptions, allowedDomains });
			},
		},
	};
}

export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();

	/** Stored (decrypted) data by credential type name; preAuthentication writes back here. */
	readonly stored: Record<string, ICredentialDataDecryptedObject>;

	constructor(
		credentialTypes: ICredentialType[],
		credentials: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
		// Copy so a run that refreshes a token cannot leak into the caller's fixture.
		this.stored = structuredClone(credentials);
	}

	private getType(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type)
			throw new UnexpectedError(`Unknown credential type "${name}" (pass it in credentialTypes)`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.types.get(name)?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const definition = this.getType(type);
		if (!definition.extends) return definition.properties;
		const combined: INodeProperties[] = [];
		for (const parent of definition.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, definition.properties);
		return combined;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.stored[type];
		if (data === undefined) {
			throw new UnexpectedError(
				`No test credentials of type "${type}" (node credential "${nodeCredentials.name}"); pass them in credentials`,
			);
		}
		if (raw === true) return structuredClone(data);

		// Same as CLI applyDefaultsAndOverwrites, minus overwrites/external secrets.
		let decrypted = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			structuredClone(data) as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
				expressionResolveValues;
			decrypted = workflow.expression.getParameterValue(
				decrypted as INodeParameters,
				runExecutionData,
				runIndex,
				itemIndex,
				node.name,
				connectionInputData,
				mode,
				additionalKeys,
				executeData,
				false,
				decrypted,
			) as ICredentialDataDecryptedObject;
		} else if (Object.values(decrypted).some(isExpression)) {
			// Outside a run (e.g. loadOptions) the CLI resolves against an empty workflow.
			const workflow = new Workflow({
				nodes: [],
				connections: {},
				active: false,
				nodeTypes: noNodeTypes,
			});
			decrypted = await workflow.expression.withIsolate(
				async () =>
					workflow.expression.getComplexParameterValue(
						credentialExpressionNode,
						decrypted as INodeParameters,
						mode,
						additionalKeys,
						undefined,
						undefined,
						decrypted,
					) as ICredentialDataDecryptedObject,
			);
		}
		return decrypted;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			if (!workflow || !node) {
				throw new UnexpectedError(
					'Workflow and node are required for declarative credential authentication',
				);
			}
			const resolve = (value: string): string => {
				if (!isExpression(value)) return value;
				const resolved = workflow.expression.getSimpleParameterValue(
					node,
					value,
					'internal',
					{ $credentials: credentials },
					undefined,
					'',
				);
				return resolved ? resolved.toString() : '';
			};
			requestOptions.headers ??= {};
			const target = requestOptions as unknown as Record<string, Record<string, string>>;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					target[outerKey] ??= {};
					target[outerKey][resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		const expirable = type.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirable === undefined || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = (await type.preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;
		if (node.credentials) {
			// Like the CLI: persist the new token, but never overwrite a field the
			// user stored as an expression with this run's resolved value.
			const storedData = this.stored[typeName] ?? {};
			const dataToPersist = { ...storedData };
			for (const [key, value] of Object.entries(output)) {
				if (key === expirable.name || !isExpression(storedData[key])) dataToPersist[key] = value;
			}
			await this.updateCredentials(node.credentials[typeName], typeName, dataToPersist);
			return Object.assign(credentials, output);
		}
		return undefined;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const { preAuthentication } = this.getType(typeName);
		if (typeof preAuthentication !== 'function') return undefined;
		const output = await preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		);
		return (output as ICredentialDataDecryptedObject) ?? undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		// Only the CLI's DB layer needs the encrypted entity; nothing in a node run does.
		throw new UnexpectedError('getCredentials (encrypted entity) is not available in tests');
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.stored[type] = data;
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.stored[type] = { ...this.stored[type], oauthTokenData: data.oauthTokenData };
	}
}
