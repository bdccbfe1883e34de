export { MAGIC_LAST4, SandboxPayments, sandboxCard, type SandboxPaymentsOptions } from './sandbox.adapter.js';
