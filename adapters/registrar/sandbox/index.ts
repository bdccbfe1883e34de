export { SandboxRegistrar, TAKEN_UNTIL, SANDBOX_AUTH_OK, SANDBOX_AUTH_REJECT, TRANSFER_DAYS } from './sandbox.adapter.js';
