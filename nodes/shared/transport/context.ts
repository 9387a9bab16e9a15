import type { IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

/** The n8n contexts that send requests to the service: an operation, the trigger's lifecycle, a list search. */
export type RequestContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;
