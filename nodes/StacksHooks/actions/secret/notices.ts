/** What rotating or deleting the account's consumer secret does to deliveries: shown in the editor and as an execution hint. */

export const ROTATION_NOTICE =
	"The consumer secret belongs to the account: rotating it changes it for every hook of the account at once, and the old one stops working. A Stacks Hooks Trigger whose credential leaves 'Consumer Secret' empty picks up the new secret at its next delivery (within a minute); any other receiver of these deliveries, and a credential with 'Consumer Secret' filled in, must be given the new secret.";

export const DELETION_NOTICE =
	"Deleting the consumer secret makes the service send deliveries without one, for every hook of the account. Stacks Hooks Triggers refuse such deliveries, and one whose credential leaves 'Consumer Secret' empty creates a new secret at the next refused delivery (within a minute). Receivers you run yourself must then be given the new secret.";
