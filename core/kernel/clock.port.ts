/** Time comes only from here, so every rule that depends on time is testable (DESIGN: Shape). */
export interface Clock {
  now(): Date;
}
