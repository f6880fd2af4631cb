/**
 * A refusal whose writes must stand: a wrong one-time code is refused, and the attempt it spent is
 * counted all the same. The runner commits the call's transaction, then answers with the problem (and
 * stores no answer under the idempotency key, so a retry is judged again).
 */
import { Problem } from '@svc/shared';

export class CommittedRefusal extends Problem {}
