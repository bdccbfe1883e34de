export { SandboxRegistrar, TAKEN_UNTIL } from './sandbox.adapter.js';
