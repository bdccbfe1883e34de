export { Argon2PasswordHasher, OWASP_ARGON2, type Argon2Options } from './argon2.adapter.js';
