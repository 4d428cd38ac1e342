import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { configError } from "../config/testing.ts";
import { loadKubeConfig, readKubeconfigFile } from "./kubeconfig.ts";
import { loadTransport } from "./transport.ts";

const dir = mkdtempSync(join(tmpdir(), "kubeconfig-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const write = (text: string, sub = ""): string => {
  const folder = join(dir, sub);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `config-${n++}`);
  writeFileSync(path, text);
  return path;
};

const KUBECTL_STYLE = `apiVersion: v1
kind: Config
preferences: {}
current-context: admin@prod
clusters:
- name: prod
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: LS0tLS1CRUdJTg==
    tls-server-name: api.prod
    proxy-url: http://proxy:3128
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: x}
- name: dev
  cluster:
    server: http://127.0.0.1:8080
    insecure-skip-tls-verify: true
contexts:
- name: admin@prod
  context: {cluster: prod, user: admin, namespace: kube-system}
- name: dev
  context: {cluster: dev}
users:
- name: admin
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
    as: someone
- name: basic
  user: {username: u, password: p}
- name: tok
  user: {token: abc}
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      args: [eks, get-token]
      env: [{name: A, value: b}]
      interactiveMode: Never
- name: empty
  user: null
`;

const JSON_STYLE = JSON.stringify({
  apiVersion: "v1",
  kind: "Config",
  "current-context": "c",
  clusters: [{ name: "k", cluster: { server: "https://[fd00::1]:443", "certificate-authority": "/etc/ca.crt" } }],
  contexts: [{ name: "c", context: { cluster: "k", user: "u" } }],
  users: [{ name: "u", user: { "client-certificate": "/etc/c.crt", "client-key": "/etc/c.key" } }],
});

describe("reads a kubeconfig file as client-node's KubeConfig does", () => {
  test.each([
    ["kubectl-style YAML with every field we use", KUBECTL_STYLE],
    ["JSON", JSON_STYLE],
  ])("%s", (_, text) => {
    const path = write(text);
    const ours = readKubeconfigFile(path);
    const theirs = new KubeConfig();
    theirs.loadFromFile(path);
    expect(ours.currentContext).toBe(theirs.currentContext ?? "");
    const strip = <T extends object>(o: T) =>
      Object.fromEntries(Object.entries(o).filter(([, value]) => value !== undefined && value !== null));
    expect([...ours.clusters.values()].map(strip)).toEqual(theirs.clusters.map(strip));
    expect([...ours.contexts.values()].map(strip)).toEqual(theirs.contexts.map(strip));
    const users = [...ours.users.values()].map(({ dir: _, exec, ...u }) => strip({ ...u, exec: exec && strip(exec) }));
    // interactiveMode is read by no one here: exec plugins always run without a terminal.
    const theirUsers = theirs.users.map(({ exec, ...u }) =>
      strip({ ...u, exec: exec && strip({ ...exec, interactiveMode: undefined }) }),
    );
    expect(users).toEqual(theirUsers);
  });
});

describe("paths", () => {
  test("resolves relative certificate, key and token-file paths against the file's folder", () => {
    const path = write(
      `clusters: [{name: k, cluster: {server: "https://x", certificate-authority: ca.crt}}]
users: [{name: u, user: {client-certificate: pki/c.crt, client-key: /abs/c.key, token-file: token}}]`,
      "nested",
    );
    const config = readKubeconfigFile(path);
    expect(config.clusters.get("k")?.caFile).toBe(join(dir, "nested", "ca.crt"));
    expect(config.users.get("u")).toMatchObject({
      certFile: join(dir, "nested", "pki", "c.crt"),
      keyFile: "/abs/c.key",
      tokenFile: join(dir, "nested", "token"),
      dir: join(dir, "nested"),
    });
  });
});

describe("merging KUBECONFIG files", () => {
  const first = () =>
    write(`current-context: a
clusters: [{name: shared, cluster: {server: "https://first"}}]
contexts: [{name: a, context: {cluster: shared}}]`);
  const second = () =>
    write(`current-context: b
clusters: [{name: shared, cluster: {server: "https://second"}}, {name: only2, cluster: {server: "https://only2"}}]
contexts: [{name: b, context: {cluster: only2}}]`);

  test.each([
    [
      "the first file to name an entry wins",
      (c: ReturnType<typeof merged>) => c.clusters.get("shared")?.server,
      "https://first",
    ],
    [
      "entries only a later file names are added",
      (c: ReturnType<typeof merged>) => c.clusters.get("only2")?.server,
      "https://only2",
    ],
    ["the first file's current-context wins", (c: ReturnType<typeof merged>) => c.currentContext, "a"],
    ["contexts of every file are known", (c: ReturnType<typeof merged>) => [...c.contexts.keys()].join(","), "a,b"],
  ])("%s", (_, pick, want) => {
    expect(pick(merged())).toBe(want);
  });

  const merged = () => loadKubeConfig({ env: { KUBECONFIG: `${first()}:${second()}` } }).config;

  test("a later file sets current-context when the earlier ones leave it empty", () => {
    const none = write(`clusters: [{name: x, cluster: {server: "https://x"}}]`);
    expect(loadKubeConfig({ env: { KUBECONFIG: `${none}:${second()}` } }).config.currentContext).toBe("b");
  });

  test("--context picks another context of the merged files", () => {
    const loaded = loadKubeConfig({ env: { KUBECONFIG: `${first()}:${second()}` }, context: "b" });
    expect(loaded.config.currentContext).toBe("b");
  });
});

describe("names the file, the field and the problem", () => {
  test.each([
    [
      "a boolean given as a string",
      `clusters: [{name: k, cluster: {server: "https://x", insecure-skip-tls-verify: "yes"}}]`,
      /clusters\[0\]\.cluster\.insecure-skip-tls-verify/,
    ],
    ["an entry without a name", `users: [{user: {token: x}}]`, /users\[0\]\.name: is required but missing/],
    [
      "the same name twice in one file",
      `contexts: [{name: c, context: {cluster: k}}, {name: c, context: {cluster: k}}]`,
      /contexts\[1\]\.name: c is already defined above/,
    ],
    [
      "exec args that are not a list of strings",
      `users: [{name: u, user: {exec: {command: x, args: [1]}}}]`,
      /users\[0\]\.user\.exec\.args\[0\]/,
    ],
    ["text that is not YAML", "clusters: [unclosed", /is not valid YAML or JSON/],
    [
      "a key given twice in one mapping",
      "users:\n- name: u\n  user:\n    token: old\n    token: new\n",
      /token: is given twice in one mapping, at lines 4 and 5; YAML keeps only the last, so remove one/,
    ],
    [
      "a token tagged !!binary, which would be read as its base64 text",
      "users:\n- name: u\n  user:\n    token: !!binary aGVsbG8=\n",
      /users\.user\.token: has the YAML tag !!binary \(line 4\), which is not applied here/,
    ],
    [
      "a server with a tag of its own",
      "clusters: [{name: k, cluster: {server: !vault https://x}}]\n",
      /server: has the YAML tag !vault \(line 1\)/,
    ],
  ])("%s", (_, text, message) => {
    const path = write(text);
    const err = configError(() => readKubeconfigFile(path));
    expect(err.message).toContain(path);
    expect(err.message).toMatch(message);
  });

  test("a file that cannot be read", () => {
    const err = configError(() => readKubeconfigFile(join(dir, "missing")));
    expect(err.message).toMatch(/missing[\s\S]*cannot be read/);
  });

  test.each([
    [
      "a cluster in use without a server",
      `current-context: c
clusters: [{name: k, cluster: {certificate-authority-data: eA==}}]
contexts: [{name: c, context: {cluster: k}}]`,
      /clusters\[k\]\.server: is missing; set the API server's URL/,
    ],
    [
      "a context in use that names no cluster",
      `current-context: c
contexts: [{name: c, context: {user: u}}]`,
      /contexts\[c\]: names no cluster/,
    ],
    [
      "an exec plugin in use without a command",
      `current-context: c
clusters: [{name: k, cluster: {server: "https://x"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]`,
      /users\[u\]\.exec\.command: is missing/,
    ],
  ])("%s, reported when the transport is built", (_, text, message) => {
    const path = write(text);
    expect(readKubeconfigFile(path).contexts.size).toBe(1);
    expect(configError(() => loadTransport({ kubeconfig: path })).message).toMatch(message);
  });

  test("an empty file is an empty kubeconfig, as in kubectl, so the problem is the missing current-context", () => {
    const path = write("");
    expect(readKubeconfigFile(path).clusters.size).toBe(0);
    expect(configError(() => loadTransport({ kubeconfig: path })).message).toMatch(/current-context: is not set/);
  });
});
