// n8n's strict community-node lint, exactly as `@n8n/node-cli` ships it (the
// n8n Cloud-ready rule set). Kept under test/ so the package's top level stays
// what n8n packages hold; run through `npm run lint` (eslint -c, so the
// config's `./nodes/**` and `./credentials/**` globs resolve from the project root).
import { config } from '@n8n/node-cli/eslint';

export default config;
