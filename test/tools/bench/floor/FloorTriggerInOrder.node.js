'use strict';
/** The floor answered once the workflow has run, like the Stacks Hooks Trigger's in-order mode (FloorTrigger.node.js). */
const { floorType } = require('./FloorTrigger.node.js');

const FloorTriggerInOrder = floorType('floorTriggerInOrder', 'Floor Trigger In Order', 'lastNode');

module.exports = { FloorTriggerInOrder };
