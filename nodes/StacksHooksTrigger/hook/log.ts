/**
 * The trigger's lines in n8n's log, each naming the node and its workflow: what was healed or found and
 * why (info), and what the health check could not do (warn). The Error Workflow is alerts.ts's.
 */
import type { HookOwner } from './keptHook';

/** `Stacks Hooks Trigger "<node>" of workflow "<name>" (<id>)`, and the metadata n8n's log keeps beside it. */
export function whereInLog(ctx: HookOwner): { where: string; meta: { workflowId: string | undefined; nodeName: string } } {
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
