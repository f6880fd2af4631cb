/**
 * The published reputation arithmetic (docs/reputation.md, GET /v1/ranking `score`). It lives in
 * @svc/verify, the verifier anyone can run, so the nightly snapshot and the verifier compute every
 * reputation with the same pure functions (docs/verifiable-order.md).
 */
export {
  BUSINESS_SIDE,
  REPUTATION_RULES,
  ageFactor,
  businessSide,
  evidencePieces,
  outcomeStands,
  releaseCap,
  repeatFactor,
  scoreBusiness,
  tierOf,
  wilsonLowerBound,
  type EvidencePiece,
  type ReputationResult,
  type ScoredReceipt,
  type Tier,
} from '@svc/verify';
