/* eslint-disable no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The gap plan (nodes/StacksHooksTrigger/healthCheck/planning/gapPlan.ts) against a model of the service and of n8n's
 * receiving processes, for generated histories: one block mined a step, matching or not; reorganisations
 * of the tip (flip-flops included); deliveries that arrive a step or two late, come twice (an answer
 * lost), are dropped without a word, or fail until the service interrupts the hook (dropping what it
 * had queued, evaluating nothing until enabled again); a hook disabled for a while, or deleted and
 * registered again; checks every few steps that bring a stopped hook back and replay what the plan
 * says (the service evaluates each replayed height, counts a match, and delivers it, or drops it too).
 *
 * The check's view of what n8n took (`View`): 'complete' (the trigger's webhook answered: every
 * process's notes); 'absent' (a blind queue-mode main: every check passes no `taken` and no quiet
 * time); 'restarts' (regular mode where no call reaches the webhook, n8n serving HTTPS itself with a
 * certificate for its public name only: this process's own notes, complete
 * since it started, pruned below the plan's floor as ownWebhook.ts does, none at all (blind) until it
 * takes a delivery; at some checks n8n restarts and forgets them with the gap state, while what the
 * service had in flight still arrives afterwards, as it retries); 'wrong' (the webhook answered, but from a process that
 * takes no delivery: every check hears no note and no quiet time). In the 'restarts' view an outage is n8n down:
 * no check until it starts again; its activation leaves a hook it finds stopped (interrupted, disabled)
 * to the first check, or registers one found gone before that check, noting it in memory
 * (hook/activationNotes.ts); n8n may restart again before that check (a crash loop). Hooks are young, or older
 * than FIRST_WINDOW_MAX (`age`: blocks evaluated before).
 *
 * Properties: once the faults stop and a few checks have run, every block that was canonical and
 * matched reached n8n at least once; the replays stay within a bound of the faults; a history
 * without faults replays nothing. Blind, the plan replays only what a stopped hook missed and never
 * says `dry`; the alerts (healthCheck/planning/incidents.ts) fed each check's outcome only ever tell what is true; n8n
 * restarting in regular mode loses no block. With notes of a process that takes none ('wrong'), no
 * window drives a replay, a stopped hook is still caught up, and the Error Workflow is told once.
 */
import fc from 'fast-check';

import { topOf } from '../../../nodes/StacksHooksTrigger/healthCheck/channel/received';
import { planCheck } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapPlan';
import {
	DRY_CHECKS,
	emptyState,
	FIRST_WINDOW_MAX,
	type Finding,
	floorOf,
	type GapState,
	REORG_MARGIN,
	type Replay,
	type TakenDelivery,
} from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapState';
import { rangeSize, takeHeights } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/windows';
import { type AlertState, assess, BLIND_CHECKS, emptyAlerts, type GapOutcome, type IncidentKind } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/incidents';
import { propertyParameters, replayHint } from '../../support/properties';

type Fault = 'none' | 'silentDrop' | 'lostAnswer' | 'outage' | 'disable' | 'delete' | 'reorg';

interface Step {
	match: boolean;
	fault: Fault;
	/** Steps the delivery takes to arrive (the network, a retry): fewer than IDLE_STEPS. */
	delay: number;
	/** Steps n8n takes to answer it (the workflow's run): the next delivery waits for the answer. */
	cost?: number;
}

/** No delivery for this many steps and the plan is told the stream is idle (healthCheck/plan.ts, IDLE_MS): more than any delay. */
const IDLE_STEPS = 3;

const FAULTS: Record<'all' | 'loud' | 'restarts' | 'unstopped' | 'repeats' | 'reorgs' | 'none', Fault[]> = {
	all: ['none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'silentDrop', 'lostAnswer', 'outage', 'disable', 'delete', 'reorg', 'reorg'],
	/** Every fault but a silent drop: whatever is lost, a stopped hook lost it. */
	loud: ['none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'lostAnswer', 'outage', 'disable', 'delete', 'reorg', 'reorg'],
	/** The faults of an n8n restart's issue (#38): outages, a hook disabled, silent drops, lost answers, reorganisations; no delete. */
	restarts: ['none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'silentDrop', 'lostAnswer', 'outage', 'disable', 'reorg', 'reorg'],
	/** Every fault but those that stop the hook. */
	unstopped: ['none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'silentDrop', 'lostAnswer', 'reorg', 'reorg'],
	repeats: ['none', 'none', 'none', 'lostAnswer'],
	none: ['none'],
	reorgs: ['none', 'none', 'none', 'none', 'lostAnswer', 'reorg'],
};

/** Faults that stop the hook (the service drops what it had queued, evaluates nothing until the check). */
const STOPS: Fault[] = ['outage', 'disable', 'delete'];

const step = (faults: keyof typeof FAULTS): fc.Arbitrary<Step> => fc.record({ match: fc.boolean(), fault: fc.constantFrom(...FAULTS[faults]), delay: fc.nat({ max: 2 }) });

interface Block {
	height: number;
	hash: string;
	match: boolean;
}

interface Delivery {
	key: string;
	rollback: Block[];
	apply: Block[];
}

/**
 * What the check knows of what n8n took: every process's notes through the trigger's webhook ('complete'); nothing
 * (`absent`: a queue-mode main that cannot reach the webhook processes); this process's notes since it started, n8n
 * restarting now and then (`restarts`: regular mode, no call reaching the webhook; ownWebhook.ts's `localReceived`); every
 * process's notes, n8n restarting now and then with what the last check kept in the static data through the webhook
 * (`persisted`: regular mode, the webhook heard at its URL or where n8n took a delivery; queue mode with the Internal Webhook
 * Address set right); the
 * notes of a process that takes no delivery (`wrong`: queue mode with the address set to the main, which answers the check
 * with its own notes, empty, and no quiet time).
 */
type View = 'complete' | 'absent' | 'restarts' | 'persisted' | 'wrong';
const restarting = (view: View) => view === 'restarts' || view === 'persisted';

const copyNotes = (notes: Map<string, TakenDelivery>) => new Map([...notes].map(([key, taken]) => [key, { ...taken, ...(taken.p && { p: [...taken.p] }) }]));

/** The activation's note of a hook it found stopped (hook/activationNotes.ts): the status as read before it enabled it. */
interface StopNote {
	hookId: string;
	evaluated: number | null;
	count: number;
	occurrences: number;
	lastMatch: number | null;
}

/** The service, and n8n's receiving side as received.ts keeps it. */
class World {
	/** What the check knows of what n8n took; `age`: blocks the hook evaluated before the history (none matching). */
	constructor(
		readonly view: View = 'complete',
		age = 0,
	) {
		for (let height = 1; height <= age; height++) this.chain.push(this.block(height, false));
		if (age > 0) [this.evaluated, this.evaluatedCount] = [age, age];
	}

	now = 0;
	chain: Block[] = [];
	forks = 0;
	hookId = 'h1';
	hooks = 1;
	stopped: 'interrupted' | 'disabled' | 'deleted' | undefined;
	evaluated: number | null = null;
	evaluatedCount = 0;
	occurrences = 0;
	/** Blocks that were applied and matched at some time: which hashes reached n8n. */
	readonly reached = new Set<string>();
	inFlight: Array<{ at: number; delivery: Delivery }> = [];
	/** received.ts's record, as one union. */
	taken = new Map<string, TakenDelivery>();
	/** What the last check kept in the static data through the trigger's webhook (the 'persisted' view): its state, and the notes then. */
	private kept: { state: GapState; taken: Map<string, TakenDelivery> } = { state: emptyState(), taken: new Map() };
	/** What the static data holds of the check's state when a delivery comes. */
	marks: GapState = emptyState();
	replayed = 0;
	/** Replays of each height. */
	readonly replayedAt = new Map<number, number>();
	/** Blocks mined while the hook was stopped: heights the service never evaluated for it. */
	minedStopped = 0;
	/** Steps n8n takes to answer a replayed delivery (as `cost` for a live one): a catch-up slows the stream. */
	replayCost = 0;
	/** The last check asked for the next one soon (healthCheck/run.ts: never twice in a row). */
	soon = false;
	readonly droppedReplays = new Set<number>();
	/** The service drops every delivery of the hook from now on, replayed ones too, without a word. */
	blackhole = false;
	/** Checks so far, and what each said that the alerts tell (gapPlan.ts's dry finding). */
	checks = 0;
	readonly dry: number[] = [];
	/** Every kind of finding the plan made. */
	readonly found = new Set<Finding['kind']>();
	/** The incidents that began (healthCheck/planning/incidents.ts), at which check (1 for the first). */
	readonly began: Array<{ check: number; kind: IncidentKind }> = [];
	/** Whether n8n took any delivery since it (re)started: received.ts has notes of the hook only then. */
	tookSinceStart = false;
	restarts = 0;
	/** The next check is the first since a restart with nothing kept (healthCheck/plan.ts: `lifeUnknown`). */
	lifeUnknown = false;
	/** The next check is the first since a restart from the state the last check kept (healthCheck/plan.ts: `startedSinceKept`). */
	startedSinceKept = false;
	/** The activation's note of a stopped hook, kept in the static data until a kept state has taken it. */
	stopNote: StopNote | undefined;
	/** Restarts whose activation registered a hook found gone before the first check (its note in memory). */
	enabledAtStart = 0;
	/** Restarts whose activation found the hook stopped and left it to the first check. */
	leftAtStart = 0;
	/** Restarts before any check ran since the one before. */
	crashLoops = 0;
	/** Restarts while a gap was pending or being replayed. */
	pendingAtRestart = 0;
	/** Where gaps began that the trigger said it could not tell the start of (gapStartUnknown): blocks below may be lost. */
	readonly unknownFrom: number[] = [];
	/** The hook stopped before n8n had taken anything of it: then nothing at all is known of where its gap began. */
	stoppedUnseen = false;
	/** The height of the hook's last match (`last_occurrence_block_height`). */
	lastMatch: number | null = null;
	/** Matches the service counted since a check last read it; and per check, whether it had counted any since the check before (never at the first). */
	private countedSinceRead = 0;
	readonly counted: boolean[] = [];

	block(height: number, match: boolean): Block {
		return { height, hash: `b${height}.${++this.forks}`, match };
	}

	/** The service evaluates a block for the hook (live), counting a match. */
	private evaluate(block: Block): void {
		this.evaluated = block.height;
		this.evaluatedCount++;
		if (block.match) {
			this.occurrences++;
			this.countedSinceRead++;
			this.lastMatch = block.height;
		}
	}

	/** When the hook's stream is free again: the service sends a hook's deliveries one after another (emulator README, assumption 1). */
	private streamFreeAt = 0;
	/** When n8n last took a delivery. */
	lastTakenAt = Number.NEGATIVE_INFINITY;
	/** The longest a delivery waited in the stream behind others. */
	maxLag = 0;

	private send(delivery: Delivery, { fault, delay, cost = 0 }: Step): void {
		if (fault === 'silentDrop' || this.blackhole) return;
		const at = Math.max(this.streamFreeAt, this.now + delay);
		this.maxLag = Math.max(this.maxLag, at - this.now);
		this.inFlight.push({ at, delivery });
		this.streamFreeAt = at + cost;
		if (fault === 'lostAnswer') {
			this.inFlight.push({ at: this.streamFreeAt + 1, delivery });
			this.streamFreeAt += 1 + cost;
		}
	}

	mine(current: Step): void {
		this.now++;
		this.arrive();
		if (current.fault === 'outage' || current.fault === 'disable' || current.fault === 'delete') {
			// Past the retries (or disabled, or deleted): what was queued is dropped, nothing is evaluated until the check.
			this.inFlight = [];
			this.streamFreeAt = this.now;
			this.stopped = current.fault === 'outage' ? 'interrupted' : current.fault === 'disable' ? 'disabled' : 'deleted';
			if (this.taken.size === 0) this.stoppedUnseen = true;
		}
		const tip = this.chain.at(-1);
		if (current.fault === 'reorg' && tip) {
			// The tip replaced by another block at its height, then the next one mined on it: one payload.
			const fork = this.block(tip.height, current.match);
			const next = this.block(tip.height + 1, current.match);
			this.chain.splice(-1, 1, fork, next);
			if (this.stopped) return;
			for (const block of [fork, next]) this.evaluate(block);
			const apply = [fork, next].filter((block) => block.match);
			if (tip.match || apply.length > 0) this.send({ key: `${this.hookId}|${tip.hash}|${apply.map((b) => b.hash).join(',')}`, rollback: tip.match ? [tip] : [], apply }, current);
			return;
		}
		const block = this.block((tip?.height ?? 0) + 1, current.match);
		this.chain.push(block);
		if (this.stopped) {
			this.minedStopped++;
			return;
		}
		this.evaluate(block);
		if (block.match) this.send({ key: `${this.hookId}||${block.hash}`, rollback: [], apply: [block] }, current);
	}

	arrive(): void {
		const due = this.inFlight.filter(({ at }) => at <= this.now);
		this.inFlight = this.inFlight.filter(({ at }) => at > this.now);
		for (const { at, delivery } of due) {
			this.lastTakenAt = Math.max(this.lastTakenAt, at);
			this.tookSinceStart = true;
			this.take(delivery);
		}
	}

	/** received.ts's noteDelivery, with the marks the static data holds now. */
	private take(delivery: Delivery): void {
		for (const block of delivery.apply) this.reached.add(block.hash);
		if (delivery.apply.length === 0 && delivery.rollback.length === 0) return;
		const single = delivery.apply.length === 1 && delivery.rollback.length === 0 ? delivery.apply[0].height : undefined;
		const listed = [...this.marks.replays, ...this.marks.windows.flatMap((window) => window.replays)];
		const replays = single === undefined ? [] : listed.filter((replay) => replay.from <= single && single <= replay.to).map((replay) => replay.at);
		const known = this.taken.get(delivery.key);
		const taken: TakenDelivery = known ?? { a: delivery.apply.map((block) => [block.height, block.hash]), ...(delivery.rollback.length > 0 && { b: delivery.rollback.map((block): [number, string] => [block.height, block.hash]) }) };
		if (replays.length > 0) taken.p = [...new Set([...(taken.p ?? []), ...replays])];
		this.taken.set(delivery.key, taken);
	}

	/**
	 * n8n restarts (the 'restarts' view): its memory is gone, what the static data kept is not (the notes of every delivery
	 * it answered, and the check's state as the last of them left it); what the service has in flight still arrives, as it
	 * retries. Its activation leaves a hook the service stopped (interrupted, disabled) to the first check (lifecycle.ts: the
	 * service's status is the record of the stop); one deleted it replaces at once, noting it in memory (hook/activationNotes.ts). The
	 * state the next check begins from.
	 */
	restart(): GapState {
		// Where the webhook was reached, the static data holds the notes and state as the last check kept them; else neither,
		// and all is begun anew.
		const persisted = this.view === 'persisted';
		this.lifeUnknown = !persisted;
		this.startedSinceKept = persisted;
		this.taken = persisted ? copyNotes(this.kept.taken) : new Map();
		this.lastTakenAt = Number.NEGATIVE_INFINITY;
		this.tookSinceStart = false;
		this.restarts++;
		// The hook kept in the static data is gone (deleted meanwhile, or one a check registered anew whose state no
		// delivery kept): the activation registers one, or adopts the one posting to its URL, and notes it as a repair.
		const gone = this.stopped === 'deleted';
		if (this.stopped === 'deleted') {
			// Registered anew with nothing known of the old one: replayed from the chain's start (the Catch-Up Limit bounds it).
			this.stoppedUnseen = true;
			this.hookId = `h${++this.hooks}`;
			[this.evaluated, this.evaluatedCount, this.occurrences, this.lastMatch] = [null, 0, 0, null];
		}
		// The activation's note is in memory (hook/activationNotes.ts): one not taken before this restart is gone with it.
		this.stopNote = undefined;
		if (this.stopped !== undefined && !gone) this.leftAtStart++;
		if (gone) {
			this.enabledAtStart++;
			this.stopNote = { hookId: this.hookId, evaluated: this.evaluated, count: this.evaluatedCount, occurrences: this.occurrences, lastMatch: this.lastMatch };
			this.stopped = undefined;
			this.streamFreeAt = this.now;
		}
		this.marks = persisted ? this.kept.state : emptyState();
		return this.marks;
	}

	/** What the check is told n8n took: undefined when it cannot know (blind). */
	private takenView(state: GapState): TakenDelivery[] | undefined {
		if (this.view === 'absent') return undefined;
		if (this.view === 'wrong') return [];
		if (this.view === 'restarts') {
			// localReceived: no notes at all until this process took a delivery; the notes pruned below the plan's floor
			// (before the read, as ownWebhook.ts prunes them when the check hears, and after the plan, with the same floor).
			if (!this.tookSinceStart) return undefined;
			const floor = floorOf(state);
			for (const [key, taken] of this.taken) if (topOf(taken) <= floor) this.taken.delete(key);
		}
		return [...this.taken.values()];
	}

	/** One health check: read, repair, plan, keep the state, replay (healthCheck/run.ts). */
	check(state: GapState, perCheck: number, dropReplays: boolean): GapState {
		this.now++;
		this.arrive();
		const taken = this.takenView(state);
		this.counted.push(this.checks > 0 && this.countedSinceRead > 0);
		this.countedSinceRead = 0;
		const interrupted = this.stopped === 'interrupted';
		// The activation's note of a stop, taken once (hook/activationNotes.ts, takeStoppedAtActivation).
		const note = this.stopNote;
		this.stopNote = undefined;
		const byActivation = note !== undefined && this.stopped === undefined;
		const repaired = this.stopped !== undefined || byActivation;
		const deleted = this.stopped === 'deleted';
		// Deleted with nothing known of it (no state, nothing taken): no record says where, so from the chain's start (bounded by
		// the Catch-Up Limit, the rest said as over it).
		if (deleted && state.previous === undefined && state.windows.length === 0 && state.stopped === undefined && (taken?.length ?? 0) === 0) this.stoppedUnseen = true;
		const read = deleted
			? { evaluated: null, count: 0, occurrences: 0 }
			: byActivation
				? { evaluated: note.evaluated, count: note.count, occurrences: note.occurrences }
				: { evaluated: this.evaluated, count: this.evaluatedCount, occurrences: this.occurrences };
		const stopRecord = note ? { height: note.evaluated, lastMatch: note.lastMatch, byActivation: true as const } : repaired && !deleted ? { height: this.evaluated, lastMatch: this.lastMatch } : undefined;
		if (deleted) {
			this.hookId = `h${++this.hooks}`;
			[this.evaluated, this.evaluatedCount, this.occurrences] = [null, 0, 0];
		}
		this.stopped = undefined;
		this.marks = state;
		const observation = {
			now: this.now,
			hookId: this.hookId,
			repaired,
			// Enabled again: the same hook, its counts as read (healthCheck/run.ts); registered anew: not passed.
			...(repaired && !deleted && { resumedFrom: { occurrences: read.occurrences, evaluated: read.count } }),
			...(stopRecord && { stopRecord }),
			// What the static data kept of the notes when n8n last started: in this model every note a delivery wrote.
			evaluatedHeight: read.evaluated,
			evaluatedCount: read.count,
			occurrences: read.occurrences,
			taken,
			// The model's clock moves a step for each block and two for each check.
			...(taken && this.view !== 'wrong' && Number.isFinite(this.lastTakenAt) && { quietMs: this.now - this.lastTakenAt }),
			idleMs: IDLE_STEPS,
			...(this.lifeUnknown && { lifeUnknown: true }),
			...(this.startedSinceKept && { startedSinceKept: true }),
		};
		const { state: planned, soon, found, unjudged } = planCheck(state, observation);
		this.lifeUnknown = false;
		this.startedSinceKept = false;
		this.checks++;
		if (found.some((finding) => finding.kind === 'dry')) this.dry.push(this.checks);
		for (const finding of found) this.found.add(finding.kind);
		for (const finding of found) if (finding.kind === 'stopped' && finding.unknownStart) this.unknownFrom.push(finding.range[0]);
		this.soon = soon === true;
		const { now: replayNow, left } = takeHeights(planned.pending, perCheck);
		// The alerts of this check (healthCheck/run.ts), kept with the gap state as the check keeps them: what the check
		// outcome (replay.ts) tells them, nothing replayed left over, no delivery repeating, no stall asked about.
		const gaps: GapOutcome = { found, replayed: rangeSize(replayNow), left: 0, ...(taken === undefined && { blind: 'the model hides what n8n took' }), ...(unjudged !== undefined && { unjudged }) };
		const alerts = assess((state.alerts as AlertState | undefined) ?? emptyAlerts(), { now: this.now, hookId: this.hookId, wasInterrupted: interrupted, stallMinutes: 0, gaps });
		for (const kind of alerts.began) this.began.push({ check: this.checks, kind });
		this.now++;
		const replays: Replay[] = replayNow.map(([from, to]) => ({ from, to, at: this.now, evaluated: to - from + 1 }));
		const next: GapState = { ...planned, pending: left, replays: [...planned.replays, ...replays], alerts: alerts.state };
		this.marks = next;
		// The check's second call to the webhook keeps its plan before it replays (replay.ts), with the notes as they stand.
		this.kept = { state: next, taken: copyNotes(this.taken) };
		for (const [from, to] of replayNow) {
			for (let height = from; height <= to; height++) {
				this.replayed++;
				this.replayedAt.set(height, (this.replayedAt.get(height) ?? 0) + 1);
				const block = this.chain[height - 1];
				// Every height up to the tip has a block on the real chain (the model's start at 1 leaves out the genesis
				// block at 0), which the service evaluates and counts; above the tip it evaluates nothing.
				if (height > this.chain.length) continue;
				this.evaluated = height;
				this.evaluatedCount++;
				if (!block?.match) continue;
				this.occurrences++;
				this.countedSinceRead++;
				this.lastMatch = height;
				// A replayed delivery can be dropped too (the first replay of some heights): the plan must see it did not arrive.
				if (dropReplays && height % 7 === 0 && !this.droppedReplays.has(height)) {
					this.droppedReplays.add(height);
					continue;
				}
				// Into the same stream, after what is queued.
				this.send({ key: `${this.hookId}||${block.hash}`, rollback: [], apply: [block] }, { match: true, fault: 'none', delay: 0, cost: this.replayCost });
			}
		}
		return next;
	}
}

/**
 * `restarts`: the steps (0 for the first) before which n8n restarts, in the 'restarts' view, a gap pending or not; there an
 * outage is n8n down, so a restart follows each one at the next step, and with `crashLoop` another one a step after
 * that, before the first check. `age`: blocks the hook evaluated before.
 */
function run(
	steps: Step[],
	every: number,
	dropReplays: boolean,
	{
		view = 'complete',
		restarts = [],
		replayCost = 0,
		perCheck = 1_000,
		age = 0,
		crashLoop = false,
	}: { view?: View; restarts?: readonly number[]; replayCost?: number; perCheck?: number; age?: number; crashLoop?: boolean } = {},
): { world: World; state: GapState } {
	const world = new World(view, age);
	world.replayCost = replayCost;
	let state = emptyState();
	let soonAt: number | undefined;
	let downAt: number | undefined;
	let upAgainAt: number | undefined;
	let checksAtStart = 0;
	for (const [i, current] of steps.entries()) {
		// A restart after an outage (n8n was down: its activation brings the hook back before the first check), and at chosen
		// steps, while no gap is pending: a restart forgets the check's state where n8n cannot reach its own webhook (README,
		// Nothing missed), and so a gap it had found and not yet replayed.
		// Again before the first check too (a crash loop), but for a hook activation registered in place of one found gone: its
		// note lives in memory until that check takes it (docs/nothing-missed.md).
		// Where the check keeps its state through the webhook ('persisted'), at any point, a gap pending or being replayed.
		const calm = (view === 'persisted' || (!state.stopped && state.pending.length === 0)) && world.stopNote === undefined;
		const crash = crashLoop && upAgainAt === i - 1;
		if (restarting(view) && calm && (restarts.includes(i) || downAt === i - 1 || crash)) {
			upAgainAt = downAt === i - 1 ? i : undefined;
			if (world.checks === checksAtStart) world.crashLoops++;
			if (state.stopped || state.pending.length > 0 || state.replays.length > 0) world.pendingAtRestart++;
			checksAtStart = world.checks;
			state = world.restart();
			// The first check after a start comes soon (healthCheck/run.ts, STARTUP_DELAY_MS), after the activation's deliveries.
			soonAt = i + 1;
		}
		world.mine(current);
		// An outage is n8n down: no check until it starts again (at the next step), when no gap is pending.
		downAt = restarting(view) && current.fault === 'outage' && (view === 'persisted' || (!state.stopped && state.pending.length === 0)) && world.stopNote === undefined ? i : undefined;
		// The first check comes soon after activation (healthCheck/run.ts), then one every interval, and one a step after a
		// check that asked for it (not after one that was itself soon).
		if (downAt === undefined && (i === 0 || (i + 1) % every === 0 || i === soonAt)) {
			const wasSoon = i === soonAt;
			state = world.check(state, perCheck, dropReplays);
			soonAt = world.soon && !wasSoon ? i + 1 : undefined;
		}
	}
	// Quiet blocks (nothing matches, nothing fails) and checks until every plan is carried out (a few heights a check
	// take more checks to replay what is pending), and what the replays sent has arrived (behind a slow stream, more than
	// the quiet steps: FC_SEED=1452137027 ended with a replayed block still on its way).
	for (let quiet = 1; quiet <= 12 * every || ((state.pending.length > 0 || world.inFlight.length > 0) && quiet <= 200 * every); quiet++) {
		world.mine({ match: false, fault: 'none', delay: 0 });
		if (quiet % every === 0) state = world.check(state, perCheck, false);
	}
	return { world, state };
}

/**
 * After restarts, once the faults stop: nothing pending, no block lost but below where the trigger said it could not tell
 * where a gap began, never dry, and the replays bounded (a hook registered anew is young: after a restart it is replayed
 * from its first block, FIRST_WINDOW_MAX bounding it; one stopped before anything of it was known has no record of where:
 * the Catch-Up Limit bounds it).
 */
function expectRestartsHeld(world: World, state: GapState, steps: Step[], every: number): void {
	expect({ pending: state.pending, stopped: state.stopped }).toEqual({ pending: [], stopped: undefined });
	const said = Math.max(-1, ...world.unknownFrom);
	expect(missingOf(world).filter((height) => height >= said)).toEqual([]);
	expect(world.dry).toEqual([]);
	const faults = steps.filter((s) => s.fault !== 'none' && s.fault !== 'lostAnswer').length + world.restarts;
	if (!world.stoppedUnseen && world.hooks === 1) expect(world.replayed).toBeLessThanOrEqual((faults + 1) * 6 * (every + REORG_MARGIN));
}

const missingOf = (world: World) => world.chain.filter((block) => block.match && !world.reached.has(block.hash)).map((block) => block.height);

/** Nothing lost, nothing replayed, and no word that the hook delivers nothing. */
function expectUntouched(world: World): void {
	expect({ replayed: world.replayed, missing: missingOf(world), dry: world.dry }).toEqual({ replayed: 0, missing: [], dry: [] });
}

describe('the gap plan, against a model of the service and n8n', () => {
	it('every canonical matched block reaches n8n once the faults stop, and the replays stay bounded', () => {
		let histories = 0;
		let faults = 0;
		let replayed = 0;
		fc.assert(
			fc.property(fc.array(step('all'), { minLength: 20, maxLength: 200 }), fc.integer({ min: 4, max: 12 }), fc.boolean(), (steps, every, dropReplays) => {
				histories++;
				const { world, state } = run(steps, every, dropReplays);
				const faultsHere = steps.filter((s) => s.fault !== 'none' && s.fault !== 'lostAnswer' && s.fault !== 'reorg').length;
				faults += faultsHere;
				replayed += world.replayed;
				expect({ missing: missingOf(world), pending: state.pending, stopped: state.stopped }).toEqual({ missing: [], pending: [], stopped: undefined });
				// Bounded: each fault costs a few check intervals of heights (and the reorganisation margin).
				expect(world.replayed).toBeLessThanOrEqual((faultsHere + 1) * 6 * (every + 10) + steps.length);
			}),
			propertyParameters(400),
		);
		console.log(`gap plan property: ${histories} histories, ${faults} faults, ${replayed} heights replayed; ${replayHint()}`);
	});

	it('catches a stopped hook up at the floor: each height once per stop, the heights it missed and the reorganisation margin', () => {
		let missed = 0;
		let replayed = 0;
		let margins = 0;
		// Stops far enough apart that each gap is closed and verified before the next (those closer share heights).
		const segment = fc.record({ healthy: fc.array(step('none'), { minLength: 0, maxLength: 20 }), stop: fc.constantFrom<Fault>('outage', 'disable'), delay: fc.nat({ max: 2 }) });
		// n8n taking up to a step to answer each delivery, replayed ones too (many workflows at once): the catch-up's
		// deliveries hold the live ones back, which then come after later checks have begun replays of their heights.
		const slowness = fc.nat({ max: 1 });
		// A share of the rate limit that replays a few heights a check (ten hooks on one account): the catch-up spans checks.
		const share = fc.constantFrom(3, 10, 1_000);
		fc.assert(
			fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.integer({ min: 4, max: 12 }), slowness, share, (segments, every, cost, perCheck) => {
				const quiet = (): Step => ({ match: true, fault: 'none', delay: 0, cost });
				const steps = segments.flatMap(({ healthy, stop, delay }) => [...Array.from({ length: 5 * every }, quiet), ...healthy.map((s) => ({ ...s, cost })), { match: true, fault: stop, delay }]);
				const { world, state } = run(steps, every, false, { replayCost: cost, perCheck });
				const stops = steps.filter((s) => STOPS.includes(s.fault)).length;
				expect({ missing: missingOf(world), pending: state.pending }).toEqual({ missing: [], pending: [] });
				// A height is replayed once for each gap it lies in, never more (two stops close together share heights).
				expect(Math.max(0, ...world.replayedAt.values())).toBeLessThanOrEqual(stops);
				// Replayed: what the service never evaluated for the hook, and for each stop the reorganisation margin below the
				// height known complete, the interval before it whose count could not be verified (what the service dropped when
				// it stopped lies there), and the heights it evaluated after it was brought back and before n8n took a block of
				// them (no block taken: up to the height read at the check that saw it evaluate again).
				expect(world.replayed).toBeLessThanOrEqual(world.minedStopped + stops * (REORG_MARGIN + 2 * every + 2));
				missed += world.minedStopped;
				replayed += world.replayed;
				margins += stops * REORG_MARGIN;
			}),
			propertyParameters(300),
		);
		console.log(`catch-up at the floor: ${replayed} heights replayed for ${missed} missed and ${margins} of reorganisation margin (${(replayed / Math.max(1, missed + margins)).toFixed(2)}x); ${replayHint()}`);
	});

	it('replays nothing while every match arrives, however late within a check interval, sent twice or not', () => {
		fc.assert(
			fc.property(fc.array(step('repeats'), { minLength: 10, maxLength: 150 }), fc.integer({ min: 4, max: 12 }), (steps, every) => {
				const { world } = run(steps, every, false);
				expectUntouched(world);
			}),
			propertyParameters(300),
		);
	});

	it("replays nothing while the stream runs behind n8n's pace, however far", () => {
		// Half the histories a matching block at every step, each taking n8n two steps: the stream falls ever further behind.
		const stepOf = (slower: boolean) =>
			fc.record({ match: slower ? fc.constant(true) : fc.boolean(), fault: fc.constantFrom<Fault>('none', 'none', 'lostAnswer'), delay: fc.nat({ max: 2 }), cost: slower ? fc.constant(IDLE_STEPS - 1) : fc.nat({ max: IDLE_STEPS - 1 }) });
		const behind = fc.tuple(fc.integer({ min: 4, max: 12 }), fc.boolean()).chain(([every, slower]) => fc.tuple(fc.constant(every), fc.array(stepOf(slower), { minLength: 10, maxLength: 150 })));
		let behindRuns = 0;
		let farRuns = 0;
		fc.assert(
			fc.property(behind, ([every, steps]) => {
				const { world } = run(steps, every, false);
				if (world.maxLag > every) behindRuns++;
				if (world.maxLag > 3 * every) farRuns++;
				expect(world.replayed).toBe(0);
				expect(missingOf(world)).toEqual([]);
				// Nothing was lost, so the alert that none of the hook's blocks reach n8n must not come, however far behind.
				expect(world.dry).toEqual([]);
			}),
			propertyParameters(300),
		);
		// The property must have seen streams more than one interval behind (where verifying one check later would replay),
		// and more than three (where the plan used to stop waiting and replay).
		expect(behindRuns).toBeGreaterThan(10);
		expect(farRuns).toBeGreaterThan(5);
		console.log(`stream behind: ${behindRuns} histories over an interval behind, ${farRuns} over three; ${replayHint()}`);
	});

	it('never says that none of the hook\'s blocks reach n8n while they do, even when each takes n8n longer than the idle time', () => {
		// n8n under load: a delivery can take longer than the stream's idle time, so a stream that is behind looks idle and its
		// windows are judged short (replayed for nothing), but what keeps arriving is not a hook that delivers nothing.
		const slow = fc.integer({ min: 4, max: 12 }).chain((every) =>
			fc.tuple(fc.constant(every), fc.array(fc.record({ match: fc.boolean(), fault: fc.constantFrom<Fault>('none', 'none', 'lostAnswer'), delay: fc.nat({ max: 2 }), cost: fc.nat({ max: 2 * IDLE_STEPS }) }), { minLength: 10, maxLength: 150 })),
		);
		fc.assert(
			fc.property(slow, ([every, steps]) => {
				const { world } = run(steps, every, false);
				expect(missingOf(world)).toEqual([]);
				expect(world.dry).toEqual([]);
			}),
			propertyParameters(300),
		);
	});

	it('says once that none of the hook\'s blocks reach n8n, a few checks after the service began to drop them all', () => {
		let latest = 0;
		fc.assert(
			fc.property(fc.array(step('repeats'), { minLength: 10, maxLength: 80 }), fc.integer({ min: 4, max: 12 }), (healthy, every) => {
				const world = new World();
				let state = emptyState();
				let i = 0;
				const mine = (current: Step) => {
					world.mine(current);
					if (i === 0 || (i + 1) % every === 0) state = world.check(state, 1_000, false);
					i++;
				};
				for (const current of healthy) mine(current);
				expect(world.dry).toEqual([]);
				world.blackhole = true;
				const from = world.checks;
				for (let n = 0; n < (DRY_CHECKS + 7) * every; n++) mine({ match: true, fault: 'none', delay: 0 });
				expect(world.dry).toHaveLength(1);
				latest = Math.max(latest, world.dry[0] - from);
				// The checks that close a window after the first drop, judge it, and the DRY_CHECKS in a row that say it.
				expect(world.dry[0] - from).toBeLessThanOrEqual(DRY_CHECKS + 2);
			}),
			propertyParameters(300),
		);
		console.log(`said at most ${latest} checks after the drops began (DRY_CHECKS ${DRY_CHECKS}); ${replayHint()}`);
	});

	it('replays the windows a reorganisation touched, once each, and nothing else', () => {
		fc.assert(
			fc.property(fc.array(step('reorgs'), { minLength: 10, maxLength: 150 }), fc.integer({ min: 4, max: 12 }), (steps, every) => {
				const { world } = run(steps, every, false);
				const reorgs = steps.filter((s) => s.fault === 'reorg').length;
				expect(missingOf(world)).toEqual([]);
				// A reorganisation makes its window and the one before doubtful: at most two windows and the margin each.
				expect(world.replayed).toBeLessThanOrEqual(reorgs * 2 * (2 * every + 10));
			}),
			propertyParameters(300),
		);
	});
});

describe("the gap plan and the alerts, with the check's view of what arrived", () => {
	const stopsIn = (steps: Step[]) => steps.filter((s) => STOPS.includes(s.fault)).length;
	const kindsBegun = (world: World) => world.began.map(({ kind }) => kind);

	it('blind: every canonical matched block reaches n8n once the faults stop, replayed only for a stopped hook, and never dry', () => {
		let stopped = 0;
		fc.assert(
			fc.property(fc.array(step('loud'), { minLength: 20, maxLength: 200 }), fc.integer({ min: 4, max: 12 }), (steps, every) => {
				const { world, state } = run(steps, every, false, { view: 'absent' });
				const stops = stopsIn(steps);
				if (world.replayed > 0) stopped++;
				// A stopped hook needs no count: what it missed is replayed from below the last check's height.
				expect({ missing: missingOf(world), pending: state.pending, stopped: state.stopped }).toEqual({ missing: [], pending: [], stopped: undefined });
				// No window is judged: nothing is found but a stopped hook.
				expect([...world.found].filter((kind) => kind !== 'stopped')).toEqual([]);
				expect(world.dry).toEqual([]);
				if (stops === 0) expect(world.replayed).toBe(0);
				expect(world.replayed).toBeLessThanOrEqual(stops * 3 * (every + REORG_MARGIN));
			}),
			propertyParameters(200),
		);
		// Histories where a stopped hook was replayed blind: the path this property is about.
		expect(stopped).toBeGreaterThan(20);
	});

	it('blind: replays nothing without a stopped hook, however late, repeated or reorganised the deliveries', () => {
		fc.assert(
			fc.property(fc.array(step('reorgs'), { minLength: 10, maxLength: 150 }), fc.integer({ min: 4, max: 12 }), (steps, every) => {
				const { world } = run(steps, every, false, { view: 'absent' });
				expectUntouched(world);
			}),
			propertyParameters(150),
		);
	});

	it('blind, the alerts say only what is true: never that nothing is delivered; once that the check is blind, after BLIND_CHECKS checks that the service counted matches at', () => {
		let said = 0;
		let exact = 0;
		const history = fc.oneof(fc.array(step('all'), { minLength: 10, maxLength: 150 }), fc.array(step('unstopped'), { minLength: 10, maxLength: 150 }));
		fc.assert(
			fc.property(history, fc.integer({ min: 4, max: 12 }), fc.boolean(), (steps, every, dropReplays) => {
				const { world } = run(steps, every, dropReplays, { view: 'absent' });
				// Missing knowledge raises nothing but the blind check itself (silent drops and blocks lost included).
				expect(kindsBegun(world).filter((kind) => kind === 'notDelivering')).toEqual([]);
				const blind = world.began.filter(({ kind }) => kind === 'checkBlind').map(({ check }) => check);
				expect(blind.length).toBeLessThanOrEqual(1);
				// The checks (1 for the first) at which the service had counted matches since the check before: each was blind.
				const counted = world.counted.flatMap((yes, i) => (yes ? [i + 1] : []));
				if (blind.length > 0) {
					said++;
					expect(counted.filter((check) => check <= blind[0]).length).toBeGreaterThanOrEqual(BLIND_CHECKS);
				}
				// A hook that never stopped: the plan reads every count it can, so it is said exactly at the BLIND_CHECKS-th such check.
				if (stopsIn(steps) === 0) {
					exact++;
					expect(blind).toEqual(counted.slice(BLIND_CHECKS - 1, BLIND_CHECKS));
				}
			}),
			propertyParameters(200),
		);
		expect(said).toBeGreaterThan(40);
		expect(exact).toBeGreaterThan(40);
	});

	it('seeing, the alerts never say that nothing is delivered or that the check is blind while the service delivers', () => {
		fc.assert(
			fc.property(fc.array(step('all'), { minLength: 20, maxLength: 200 }), fc.integer({ min: 4, max: 12 }), fc.boolean(), (steps, every, dropReplays) => {
				const { world } = run(steps, every, dropReplays);
				expect(kindsBegun(world).filter((kind) => kind === 'notDelivering' || kind === 'checkBlind')).toEqual([]);
			}),
			propertyParameters(200),
		);
	});

	it('notes of a process that takes no delivery (the address set to the main): a window drives no replay, every block a stopped hook missed still replayed, said once and only that', () => {
		let said = 0;
		let exact = 0;
		// Stops and lost answers, or only lost answers (a hook that never stops): no silent drop, which such notes cannot find.
		const history = fc.oneof(fc.array(step('loud'), { minLength: 20, maxLength: 200 }), fc.array(step('repeats'), { minLength: 20, maxLength: 200 }));
		fc.assert(
			fc.property(history, fc.integer({ min: 4, max: 12 }), (steps, every) => {
				const { world, state } = run(steps, every, false, { view: 'wrong' });
				const stops = stopsIn(steps);
				// What a stopped hook missed needs no note: replayed as blind; nothing else is (no window is taken for missing).
				expect({ missing: missingOf(world), pending: state.pending, stopped: state.stopped }).toEqual({ missing: [], pending: [], stopped: undefined });
				expect([...world.found].filter((kind) => kind !== 'stopped' && kind !== 'dry')).toEqual([]);
				if (stops === 0) expect(world.replayed).toBe(0);
				expect(world.replayed).toBeLessThanOrEqual(stops * (DRY_CHECKS + 3) * (every + REORG_MARGIN));
				// LoggedOnce as what it is, once: never that the hook delivers nothing (it does), never blind (the webhook answered).
				const begun = kindsBegun(world);
				expect(begun.filter((kind) => kind === 'notDelivering' || kind === 'checkBlind')).toEqual([]);
				expect(begun.filter((kind) => kind === 'notesUnheard').length).toBeLessThanOrEqual(1);
				if (begun.includes('notesUnheard')) said++;
				// A hook that never stopped, whose matches the service counted at DRY_CHECKS checks: said, at the latest at the check
				// after the DRY_CHECKS-th (the window the first counted closes, then is judged short and held at each check).
				const counted = world.counted.flatMap((yes, i) => (yes ? [i + 1] : []));
				if (stops === 0 && counted.length >= DRY_CHECKS + 1) {
					exact++;
					expect(world.began.find(({ kind }) => kind === 'notesUnheard')?.check).toBeLessThanOrEqual(counted[DRY_CHECKS] + 1);
				}
			}),
			propertyParameters(300),
		);
		expect(said).toBeGreaterThan(50);
		expect(exact).toBeGreaterThan(20);
		console.log(`notes of a process that takes none: said in ${said} histories, ${exact} on time; ${replayHint()}`);
	});

	/** A hook a few blocks old, or older than FIRST_WINDOW_MAX (no "from its first block" to fall back on). */
	const age = fc.constantFrom(0, FIRST_WINDOW_MAX + 1_000);

	it('restarting n8n in regular mode (no call reaching the webhook) replays nothing by itself: the first check after it does not take earlier matches for missing ones', () => {
		let restarted = 0;
		fc.assert(
			fc.property(fc.array(step('repeats'), { minLength: 20, maxLength: 150 }), fc.integer({ min: 4, max: 12 }), fc.uniqueArray(fc.nat({ max: 40 }), { minLength: 1, maxLength: 4 }), age, (steps, every, restartAt, hookAge) => {
				const { world } = run(steps, every, false, { view: 'restarts', restarts: restartAt, age: hookAge });
				restarted += world.restarts;
				expectUntouched(world);
			}),
			propertyParameters(150),
		);
		expect(restarted).toBeGreaterThan(100);
	});

	it("restarting n8n in regular mode (no call reaching the webhook), crash loops included, a stopped hook left to the first check: every block lost lies below where an alert said the trigger could not tell, never dry, and the replays bounded", () => {
		let restarts = 0;
		let replayed = 0;
		let old = 0;
		let activations = 0;
		let left = 0;
		let crashLoops = 0;
		let lostSaid = 0;
		fc.assert(
			fc.property(fc.array(step('loud'), { minLength: 20, maxLength: 200 }), fc.integer({ min: 4, max: 12 }), fc.uniqueArray(fc.nat({ max: 200 }), { maxLength: 4 }), age, fc.boolean(), (steps, every, restartAt, hookAge, crashLoop) => {
				const { world, state } = run(steps, every, false, { view: 'restarts', restarts: restartAt, age: hookAge, crashLoop });
				restarts += world.restarts;
				replayed += world.replayed;
				if (hookAge > FIRST_WINDOW_MAX) old++;
				activations += world.enabledAtStart;
				left += world.leftAtStart;
				crashLoops += world.crashLoops;
				// A restart forgets what arrived; an old hook found stopped then is replayed from its last match before the stop (less
				// the margin), and the user is told that blocks below may be lost: a block lost lies there, and only there.
				expectRestartsHeld(world, state, steps, every);
				if (missingOf(world).length > 0) lostSaid++;
				if (hookAge <= FIRST_WINDOW_MAX) expect(missingOf(world)).toEqual([]);
			}),
			propertyParameters(300),
		);
		expect(old).toBeGreaterThan(100);
		expect(left).toBeGreaterThan(100);
		expect(crashLoops).toBeGreaterThan(20);
		console.log(`restarts: ${restarts} restarts (${crashLoops} before any check since the one before), ${left} stopped hooks left to the first check, ${activations} gone ones replaced by an activation, ${replayed} heights replayed, ${old} histories of old hooks, ${lostSaid} losing blocks below a gap start it said it could not tell; ${replayHint()}`);
	});

	it('restarting n8n where the check keeps its state through the webhook (regular mode, queue mode with the address set), at any point, crash loops and a gap being replayed included: every matched block reaches n8n, nothing said of an unknown start, the replays bounded', () => {
		let restarts = 0;
		let crashLoops = 0;
		let pendingAtRestart = 0;
		let left = 0;
		fc.assert(
			fc.property(fc.array(step('loud'), { minLength: 20, maxLength: 200 }), fc.integer({ min: 4, max: 12 }), fc.uniqueArray(fc.nat({ max: 200 }), { maxLength: 6 }), age, fc.boolean(), (steps, every, restartAt, hookAge, crashLoop) => {
				const { world, state } = run(steps, every, false, { view: 'persisted', restarts: restartAt, age: hookAge, crashLoop });
				restarts += world.restarts;
				crashLoops += world.crashLoops;
				pendingAtRestart += world.pendingAtRestart;
				left += world.leftAtStart;
				// Nothing said of an unknown start (unless the hook stopped before anything of it was known: the first start of this
				// version, with an old hook), so nothing lost.
				if (!world.stoppedUnseen) expect(world.unknownFrom).toEqual([]);
				expectRestartsHeld(world, state, steps, every);
			}),
			propertyParameters(300),
		);
		expect(crashLoops).toBeGreaterThan(20);
		expect(pendingAtRestart).toBeGreaterThan(20);
		console.log(`restarts, state kept: ${restarts} restarts (${crashLoops} before any check since the one before, ${pendingAtRestart} with a gap pending or being replayed), ${left} stopped hooks left to the first check; ${replayHint()}`);
	});

	it('a restart after the replays of a check arrived, and before the next check heard them, is replayed, never said as notes that prove nothing', () => {
		// FC_SEED=795096562 found it: the replays' notes went with the process, nothing matched after the start, and the
		// window that counted the replays' matches looked like notes that never hold a delivery.
		const steps: Step[] = [
			{match: true, fault: 'reorg', delay: 2},
			{match: true, fault: 'none', delay: 0},
			{match: false, fault: 'lostAnswer', delay: 0},
			{match: true, fault: 'none', delay: 0},
			{match: false, fault: 'outage', delay: 0},
			{match: true, fault: 'disable', delay: 1},
			{match: false, fault: 'reorg', delay: 0},
			{match: false, fault: 'none', delay: 2},
			{match: false, fault: 'none', delay: 0},
			{match: false, fault: 'disable', delay: 0},
			{match: false, fault: 'lostAnswer', delay: 0},
			{match: true, fault: 'none', delay: 0},
			{match: true, fault: 'none', delay: 0},
			{match: true, fault: 'outage', delay: 2},
			{match: true, fault: 'reorg', delay: 2},
			{match: false, fault: 'disable', delay: 2},
			{match: false, fault: 'none', delay: 2},
			{match: false, fault: 'none', delay: 2},
			{match: false, fault: 'none', delay: 0},
			{match: true, fault: 'outage', delay: 1},
			{match: true, fault: 'none', delay: 1},
			{match: false, fault: 'none', delay: 0},
			{match: false, fault: 'reorg', delay: 0},
			{match: false, fault: 'reorg', delay: 0},
			{match: false, fault: 'none', delay: 0},
			{match: false, fault: 'lostAnswer', delay: 2},
			{match: false, fault: 'none', delay: 0},
		];
		const { world, state } = run(steps, 7, false, { view: 'persisted', restarts: [24], age: 2000 });
		expect(world.restarts).toBeGreaterThan(0);
		expect(world.dry).toEqual([]);
		expectRestartsHeld(world, state, steps, 7);
	});

	it('a hook stopped while nothing was kept (the first start of this version, the static data lost) is replayed from the service\'s record, never from after the repair, and said once when it is too old to be replayed whole', () => {
		let said = 0;
		fc.assert(
			fc.property(fc.array(step('none'), { minLength: 10, maxLength: 60 }), fc.integer({ min: 4, max: 12 }), fc.integer({ min: 1, max: 30 }), age, (healthy, every, outageSteps, hookAge) => {
				// A hook that streams, then stops (n8n down past the retries) with nothing kept, and n8n starts: the activation
				// enables it and its deliveries come before the first check.
				const world = new World('restarts', hookAge);
				let state = emptyState();
				healthy.forEach((current, i) => {
					world.mine({ ...current, match: true });
					if ((i + 1) % every === 0) state = world.check(state, 1_000, false);
				});
				world.mine({ match: true, fault: 'outage', delay: 0 });
				for (let i = 0; i < outageSteps; i++) world.mine({ match: true, fault: 'none', delay: 0 });
				state = world.restart();
				for (let i = 0; i < 3; i++) world.mine({ match: true, fault: 'none', delay: 0 });
				for (let i = 0; i < 12 * every; i++) {
					world.mine({ match: i < every, fault: 'none', delay: 0 });
					if (i % every === 0) state = world.check(state, 1_000, false);
				}
				expect(missingOf(world)).toEqual([]);
				const unknown = world.began.filter(({ kind }) => kind === 'gapStartUnknown');
				// Young: replayed from its first block, certain, nothing to say. Old: from the service's record, said once.
				expect(unknown.length).toBe(hookAge > FIRST_WINDOW_MAX ? 1 : 0);
				if (unknown.length > 0) said++;
				// The cost: the outage's heights, and the reorganisation margin below the service's last match, for an old hook.
				if (hookAge > FIRST_WINDOW_MAX) expect(world.replayed).toBeLessThanOrEqual(world.minedStopped + REORG_MARGIN + 2 * every + 4);
			}),
			propertyParameters(200),
		);
		expect(said).toBeGreaterThan(40);
	});
});


describe('ranges', () => {
	it('takes heights from the front, at most the limit', () => {
		expect(
			takeHeights(
				[
					[5, 9],
					[20, 29],
				],
				7,
			),
		).toEqual({
			now: [
				[5, 9],
				[20, 21],
			],
			left: [[22, 29]],
		});
	});
});
