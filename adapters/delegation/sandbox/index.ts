export { SandboxDelegationResolver, SANDBOX_PREVIOUS_NAMESERVERS } from './sandbox.adapter.js';
