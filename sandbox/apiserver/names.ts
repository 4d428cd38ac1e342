/**
 * Name and label syntax checks. Each returns the list of problems (empty ⇒ valid), worded like the real server's
 * messages so that a 422 reads the same as one from a real cluster.
 */

const dns1123LabelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123SubdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1035LabelRe = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const qualifiedNamePartRe = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValueRe = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ianaSvcNameRe = /^[-a-z0-9]+$/;
const configKeyRe = /^[-._a-zA-Z0-9]+$/;

const tooLong = (max: number): string => `must be no more than ${max} characters`;

export const dns1123Label = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 63) errs.push(tooLong(63));
  if (!dns1123LabelRe.test(v)) {
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errs;
};

export const dns1123Subdomain = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 253) errs.push(tooLong(253));
  if (!dns1123SubdomainRe.test(v)) {
    errs.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return errs;
};

export const dns1035Label = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 63) errs.push(tooLong(63));
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

/** A label or annotation key: `[prefix/]name`. */
export const qualifiedName = (v: string): string[] => {
  const parts = v.split("/");
  let name = v;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix = "", n = ""] = parts;
    name = n;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const e of dns1123Subdomain(prefix)) errs.push(`prefix part ${e}`);
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${tooLong(63)}`);
  if (name.length > 0 && !qualifiedNamePartRe.test(name)) {
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return errs;
};

export const labelValue = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 63) errs.push(tooLong(63));
  if (!labelValueRe.test(v)) {
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return errs;
};

/** A port name (IANA service name): at most 15 characters, lower-case letters, digits and '-', one letter. */
export const ianaServiceName = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 15) errs.push(tooLong(15));
  if (!ianaSvcNameRe.test(v)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (v.includes("--")) errs.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(v)) errs.push("must contain at least one letter (a-z)");
  if (v.startsWith("-") || v.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
};

export const configMapKey = (v: string): string[] => {
  const errs: string[] = [];
  if (v.length > 253) errs.push(tooLong(253));
  if (!configKeyRe.test(v)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (v === "." || v === "..") errs.push(`must not be '${v}'`);
  else if (v.startsWith("..")) errs.push("must not start with '..'");
  return errs;
};
