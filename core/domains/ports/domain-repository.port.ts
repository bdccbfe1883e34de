import type { Environment } from '../../shared/environment.js';
import type { Domain } from '../domain.js';

/** Which domains a caller may see: all of them, or those named or carrying one of the labels. */
export interface DomainScope {
  readonly all: boolean;
  readonly names: readonly string[];
  readonly labels: readonly string[];
}

export interface DomainListQuery {
  readonly accountId: string;
  readonly environment: Environment;
  readonly scope: DomainScope;
  readonly label?: string;
  readonly after?: string;
  readonly limit: number;
}

export interface DomainRepository {
  insert(domain: Domain): Promise<void>;
  find(accountId: string, environment: Environment, name: string): Promise<Domain | null>;
  list(query: DomainListQuery): Promise<Domain[]>;
}
