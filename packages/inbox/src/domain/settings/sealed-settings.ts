/**
 * The settings' secrets (SECRET_PATHS, such as email.inboundSecret) are sealed at rest like the
 * webhook secrets: what the database and its WAL hold is `v1.<iv>.<ciphertext>` from the SecretBox,
 * bound to the secret's path. Owners still read them redacted (settings-document.ts); the code that
 * needs a secret gets it open from the store. A secret found in clear (kept before sealing) is read
 * as it is and reported outdated, so the store writes it again sealed.
 */
import type { DocumentCodec } from '../../store/store.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { SECRET_PATHS, getPath, setPath, type JsonObject } from './settings-document.js';

const PURPOSE = 'settings-secret';
/** The settings are one document, so every sealed value is bound to the same row. */
const ROW_ID = 'self';

const isSealed = (value: string) => value.startsWith('v1.');

export function sealedSettingsCodec(secrets: SecretBox): DocumentCodec {
  return {
    toStored(document) {
      const copy = structuredClone(document) as JsonObject;
      for (const path of SECRET_PATHS) {
        const value = getPath(copy, path);
        if (typeof value === 'string' && !isSealed(value)) setPath(copy, path, secrets.seal(value, `${PURPOSE}:${path}`, ROW_ID));
      }
      return copy;
    },
    fromStored(stored) {
      const copy = structuredClone(stored) as JsonObject;
      let outdated = false;
      for (const path of SECRET_PATHS) {
        const value = getPath(copy, path);
        if (typeof value !== 'string') continue;
        if (isSealed(value)) setPath(copy, path, secrets.open(value, `${PURPOSE}:${path}`, ROW_ID));
        else outdated = true;
      }
      return { document: copy, outdated };
    },
  };
}
