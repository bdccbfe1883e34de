export { SandboxCertificateAuthority, sandboxProof, type SandboxCertificateAuthorityOptions } from './sandbox-ca.adapter.js';
export { ISSUING_NAME, ROOT_NAME, type SandboxCaMaterial, type SandboxCaStore } from './material.js';
