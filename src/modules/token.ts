import type { ServiceIdentifier } from 'inversify';

/** An injection token: a global symbol, so every module that names it means the same binding. */
export const token = <T>(name: string) => Symbol.for(`domivka.${name}`) as ServiceIdentifier<T>;
