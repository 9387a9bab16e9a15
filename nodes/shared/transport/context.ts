import type { IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

/**
 * The n8n contexts that send requests to the service: an operation, the trigger's lifecycle, a
 * list search, the trigger's health check, and the trigger's webhook when a delivery's secret
 * makes it re-read the account's.
 */
export type RequestContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions | ITriggerFunctions | IWebhookFunctions;
