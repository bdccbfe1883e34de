export { IterativeDelegationResolver, IANA_ROOTS, parseRootHints, type IterativeResolverConfig } from './iterative.adapter.js';
