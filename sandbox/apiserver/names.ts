/**
 * Name and label syntax checks. Each returns the list of problems (empty ⇒ valid), worded like the real server's
 * messages so that a 422 reads the same as one from a real cluster. The rules the rest of the project shares
 * (qualified names, DNS-1123 names, label values) live in `config/kube-names.ts`; the ones only the API checks, here.
 */
import { maxLenError } from "../../config/kube-names.ts";

export { dns1123Label, dns1123Subdomain, labelValue, qualifiedName } from "../../config/kube-names.ts";

const dns1035LabelRe = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const ianaSvcNameRe = /^[-a-z0-9]+$/;
const configKeyRe = /^[-._a-zA-Z0-9]+$/;

export const dns1035Label = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(v)) {
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errs;
};

/** Event names and other "path segment" names: anything but `.`, `..`, and names with `/` or `%`. */
export const pathSegmentName = (v: string): string[] => {
  if (v === "." || v === "..") return [`may not be '${v}'`];
  for (const c of ["/", "%"]) if (v.includes(c)) return [`may not contain '${c}'`];
  return [];
};

/** A port name (IANA service name): at most 15 characters, lower-case letters, digits and '-', one letter. */
export const ianaServiceName = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!ianaSvcNameRe.test(v)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (v.includes("--")) errs.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(v)) errs.push("must contain at least one letter (a-z)");
  if (v.startsWith("-") || v.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
};

export const configMapKey = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!configKeyRe.test(v)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (v === "." || v === "..") errs.push(`must not be '${v}'`);
  else if (v.startsWith("..")) errs.push("must not start with '..'");
  return errs;
};
