/**
 * Kubernetes' syntax rules for names, label keys and label values (apimachinery's `IsQualifiedName`,
 * `IsDNS1123Subdomain`, `IsDNS1123Label`, `IsValidLabelValue`), written once for every layer that checks them: the
 * API emulator's validation and selectors, a cloud-config's load-balancer classes, an annotation's label selector.
 *
 * Each function returns upstream's problem texts word for word, in upstream's order (empty ⇒ valid), so a refusal
 * reads the same as one from a real API server. The caller names the field: upstream joins several problems of one
 * value with "; " (`field.Invalid(path, value, strings.Join(errs, "; "))`), and `problemsText` does the same.
 */

/** The regular expressions as upstream prints them in its messages; matched whole (anchored) below. */
const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const whole = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
/** Go's `len`: limits count UTF-8 bytes, not UTF-16 units. */
const len = (value: string): number => Buffer.byteLength(value, "utf8");
const dns1123LabelRe = whole(DNS1123_LABEL_FMT);
const dns1123SubdomainRe = whole(DNS1123_SUBDOMAIN_FMT);
const qualifiedNameRe = whole(QUALIFIED_NAME_FMT);
const labelValueRe = whole(LABEL_VALUE_FMT);

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const QUALIFIED_NAME_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;

const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Upstream's `MaxLenError`. */
export const maxLenError = (max: number): string => `must be no more than ${max} characters`;

/** Upstream's `EmptyError`. */
export const emptyError = (): string => "must be non-empty";

/**
 * Upstream's `RegexError`: the rule, then its examples and the expression. The examples are joined as upstream
 * joins them (`'a',  or 'b', `: a comma, two spaces), which is what real servers print.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  const eg = examples.map((e) => `'${e}', `).join(" or ");
  return `${msg} (e.g. ${eg}regex used for validation is '${fmt}')`;
}

/** Several problems of one value as one text, joined as upstream's field errors join them. */
export const problemsText = (problems: readonly string[]): string => problems.join("; ");

/** `IsDNS1123Label`: a namespace, a Service port's name. */
export function dns1123Label(value: string): string[] {
  const problems: string[] = [];
  if (len(value) > DNS1123_LABEL_MAX_LENGTH) problems.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRe.test(value)) {
    problems.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        "my-name",
        "123-abc",
      ),
    );
  }
  return problems;
}

/** `IsDNS1123Subdomain`: most object names, and the prefix of a qualified name. */
export function dns1123Subdomain(value: string): string[] {
  const problems: string[] = [];
  if (len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) problems.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRe.test(value)) {
    problems.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        "example.com",
      ),
    );
  }
  return problems;
}

/**
 * `IsQualifiedName`: a label or annotation key, a `spec.loadBalancerClass` — `[prefix/]name`, the prefix a DNS
 * subdomain, the name at most 63 characters. More than one `/` is one problem; otherwise every problem of the prefix
 * and of the name (an empty name is both empty and not matching, as upstream reports it).
 */
export function qualifiedName(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const problems: string[] = [];
  const name = parts.length === 2 ? parts[1]! : value;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === "") problems.push(`prefix part ${emptyError()}`);
    else for (const p of dns1123Subdomain(prefix)) problems.push(`prefix part ${p}`);
  }
  if (name === "") problems.push(`name part ${emptyError()}`);
  else if (len(name) > QUALIFIED_NAME_MAX_LENGTH) problems.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRe.test(name)) {
    problems.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  }
  return problems;
}

/** `IsValidLabelValue`: empty, or a qualified name's name part. */
export function labelValue(value: string): string[] {
  const problems: string[] = [];
  if (len(value) > LABEL_VALUE_MAX_LENGTH) problems.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) {
    problems.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return problems;
}
