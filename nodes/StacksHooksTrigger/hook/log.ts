/**
 * The trigger's lines in n8n's log, each naming the node and its workflow: what was healed or found and
 * why (info). The health check says what it found in one place of its own (../healthCheck/report.ts), from
 * the same names.
 */
import type { HookOwner } from './keptHook';

/** What n8n's log keeps beside a line: the workflow and the node. */
export type LogMeta = {
	workflowId: string | undefined;
	nodeName: string;
};

/** `Stacks Hooks Trigger "<node>" of workflow "<name>" (<id>)`, and the metadata n8n's log keeps beside it. */
export function whereInLog(ctx: HookOwner): { where: string; meta: LogMeta } {
	const workflow = ctx.getWorkflow();
	return {
		where: `Stacks Hooks Trigger "${ctx.getNode().name}" of workflow "${workflow.name ?? ''}" (${workflow.id ?? ''})`,
		meta: { workflowId: workflow.id, nodeName: ctx.getNode().name },
	};
}

/** One info line per repair or finding: what was healed or found, and why. */
export function logHealed(ctx: HookOwner, what: string): void {
	const { where, meta } = whereInLog(ctx);
	ctx.logger.info(`${where}: ${what}`, meta);
}
