// Label keys and values as Kubernetes writes them: the patterns and predicates alone, with no schema library, so the dashboard's browser code can load them
// too.

/** A label key: an optional DNS subdomain prefix and "/", then a name of at most 63 characters. */
export const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
export const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Longest label key: a 253-character prefix, "/", a 63-character name. */
export const MAX_LABEL_KEY = 317;

export const KEY_MESSAGE =
  "must be label keys: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
export const VALUE_MESSAGE = "must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";

/** True when `key` is a Kubernetes label key: an optional DNS subdomain prefix and "/", then a name of at most 63 characters. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf("/");
  return key.length <= MAX_LABEL_KEY && (slash < 0 || slash <= 253) && LABEL_KEY.test(key);
}

/** True when `value` is a Kubernetes label value: empty, or at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit. */
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** Why a label key or value is refused, in the words of the schema's messages. */
export const LABEL_KEY_MESSAGE = KEY_MESSAGE.replace("must be label keys", "must be a label key");
export const LABEL_VALUE_MESSAGE = VALUE_MESSAGE;
