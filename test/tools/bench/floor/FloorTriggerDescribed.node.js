'use strict';
/**
 * The floor under the Stacks Hooks Trigger's whole description (npm run bench, part 1, rows …p): the
 * floor's own webhook() (FloorTrigger.node.js), declared with everything the trigger declares (its
 * parameters, credential and webhook description) and run with the trigger's parameters. What it
 * costs beyond the floor is what n8n charges for the trigger's description alone: its parameters,
 * filled in and checked each time n8n builds the workflow (three times for an accepted delivery,
 * once for a rejected one, in n8n 2.41). What the trigger costs beyond it is the trigger's own code.
 *
 * It reads the description from the Stacks package n8n installs beside this one, so it always
 * describes the trigger being measured.
 */
const { StacksHooksTrigger } = require('n8n-nodes-stacks-hooks/dist/nodes/StacksHooksTrigger/StacksHooksTrigger.node.js');
const { floorType } = require('./FloorTrigger.node.js');

const name = 'floorTriggerDescribed';
const displayName = 'Floor Trigger Described';

class FloorTriggerDescribed extends floorType(name, displayName, 'onReceived') {
	constructor() {
		super();
		this.description = { ...new StacksHooksTrigger().description, name, displayName, defaults: { name: displayName } };
	}
}

module.exports = { FloorTriggerDescribed };
