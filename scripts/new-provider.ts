/**
 * `npm run new-provider -- <name>`: create providers/<name>/ from scripts/templates/provider/ and add it to
 * providers/all.ts. Nothing else needs editing: `npm run build` finds the new index.ts and builds
 * `<name>-cloud-controller-manager`, and `npx bun test providers/<name>` runs the conformance suite over the
 * in-memory API. What it prints are npm and npx commands: only Node.js and npm are on a newcomer's PATH.
 *
 * Templates are the provider's files with a `.tmpl` suffix and placeholders for the name's spellings:
 * `__name__` (my-cloud), `__Name__` (MyCloud), `__nameCamel__` (myCloud), `__NAME__` (MY_CLOUD).
 * The new files are then formatted by biome, since line breaks and import order depend on the name.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { $ } from "bun";
import { ProviderRegistry } from "../providers/registry.ts";

const ROOT = resolve(import.meta.dir, "..");
const TEMPLATES = join(import.meta.dir, "templates", "provider");

export interface ProviderNames {
  readonly name: string;
  readonly pascal: string;
  readonly camel: string;
  readonly env: string;
}

/** The spellings of a provider name used in generated code. */
export function providerNames(name: string): ProviderNames {
  const words = name.split("-").filter((w) => w !== "");
  const pascal = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  return { name, pascal, camel: pascal[0]!.toLowerCase() + pascal.slice(1), env: words.join("_").toUpperCase() };
}

/** Why `name` cannot be a new provider in `root`, or undefined when it can. */
export function nameProblem(name: string, root = ROOT): string | undefined {
  try {
    // The registry's own rule, so the scaffold never makes a provider that cannot register.
    new ProviderRegistry().register(name, () => {
      throw new Error("unused");
    });
  } catch (err) {
    return (err as Error).message;
  }
  if (!/^[a-z]/.test(name)) return `provider name "${name}" must start with a letter: it becomes part of identifiers`;
  const dir = join(root, "providers", name);
  if (existsSync(dir)) return `providers/${name} already exists; choose another name`;
  return undefined;
}

async function templateFiles(dir = TEMPLATES): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await templateFiles(path)));
    else if (entry.name.endsWith(".tmpl")) out.push(path);
  }
  return out.sort();
}

export function render(text: string, n: ProviderNames): string {
  return text
    .replaceAll("__nameCamel__", n.camel)
    .replaceAll("__Name__", n.pascal)
    .replaceAll("__NAME__", n.env)
    .replaceAll("__name__", n.name);
}

/** providers/all.ts with the new provider's line (`lazily("acme", () => import(…))`), the lines kept sorted. */
export function withImport(allTs: string, name: string): string {
  const lines = allTs.split("\n");
  const isImport = (l: string) => /^lazily\("[a-z0-9-]+", \(\) => import\("\.\/[a-z0-9-]+\/index\.ts"\)\);$/.test(l);
  const first = lines.findIndex(isImport);
  const line = `lazily("${name}", () => import("./${name}/index.ts"));`;
  if (first === -1) return `${allTs.replace(/\n*$/, "\n")}${line}\n`;
  let end = first;
  while (end < lines.length && isImport(lines[end]!)) end++;
  const imports = [...new Set([...lines.slice(first, end), line])].sort();
  return [...lines.slice(0, first), ...imports, ...lines.slice(end)].join("\n");
}

export interface ScaffoldResult {
  /** Paths relative to the root, the provider's files first, then providers/all.ts. */
  readonly files: string[];
  /** False when biome was not found, so the files are as the templates left them. */
  readonly formatted: boolean;
}

/** Create providers/<name>/ in `root` and register it in providers/all.ts. Throws, changing nothing, on a bad name. */
export async function scaffoldProvider(name: string, root = ROOT): Promise<ScaffoldResult> {
  const problem = nameProblem(name, root);
  if (problem) throw new Error(problem);
  const names = providerNames(name);
  const dir = join(root, "providers", name);
  const files: string[] = [];
  for (const template of await templateFiles()) {
    const target = join(dir, relative(TEMPLATES, template).replace(/\.tmpl$/, ""));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, render(await readFile(template, "utf8"), names));
    files.push(relative(root, target));
  }
  const allTs = join(root, "providers", "all.ts");
  await writeFile(allTs, withImport(await readFile(allTs, "utf8"), name));
  files.push(relative(root, allTs));

  const biome = join(root, "node_modules", ".bin", "biome");
  const formatted = existsSync(biome);
  if (formatted) {
    const r = await $`${biome} check --write ${relative(root, dir)}`.cwd(root).nothrow().quiet();
    if (r.exitCode !== 0) throw new Error(`biome could not tidy providers/${name}:\n${r.stdout}${r.stderr}`);
  }
  return { files, formatted };
}

if (import.meta.main) {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || rest.length > 0 || name.startsWith("-")) {
    console.error("usage: npm run new-provider -- <name>   (lower-case letters, digits and inner dashes)");
    process.exit(2);
  }
  try {
    const { files, formatted } = await scaffoldProvider(name);
    for (const f of files) console.log(`${f === "providers/all.ts" ? "updated" : "created"} ${f}`);
    if (!formatted) console.log("biome was not found (run npm ci): the new files are not formatted");
    console.log(
      [
        "",
        "next:",
        `  npx bun test providers/${name}    (the conformance suite over the in-memory API)`,
        `  npm run build -- --target=linux-x64 --provider=${name} --no-all-in-one`,
        "  read docs/writing-a-provider.md, from here to a provider for the real cloud",
      ].join("\n"),
    );
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  }
}
