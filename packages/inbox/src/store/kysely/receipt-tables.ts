/** Table shapes of the receipt migrations (0008 onwards), as Kysely sees them. */

export interface SigningKeysTable {
  kid: string; // RFC 7638 thumbprint of the public key
  public_jwk: string; // JSON, public members only
  sealed_private: string; // SecretBox-sealed private JWK, bound to the kid
  created_at: number;
  retired_at: number | null; // null for the one active key
}

export interface InstanceSecretsTable {
  name: string;
  sealed: string; // SecretBox-sealed, bound to the name
  created_at: number;
}
