// The option reference of docs/cli.md, generated from the commands' own commander definitions (cli/program.ts), so that
// the docs list exactly the options each command accepts; also each section's option table and the sample output of
// `clauses --show`. scripts/gen-docs.ts writes them between the markers.
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Option } from 'commander';
import { createProgram } from '../cli/program.js';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

function defaultOf(option: Option): string {
  if (option.defaultValueDescription) return option.defaultValueDescription;
  if (option.defaultValue === undefined || option.defaultValue === false) return '';
  const value = option.defaultValue as unknown;
  // Paths inside the package are shown relative to it, so that the docs do not depend on the checkout's location.
  if (typeof value === 'string' && isAbsolute(value)) return `\`${relative(PACKAGE_ROOT, value) || '.'}\` (in the package)`;
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

function usageOf(command: Command, parents: readonly string[]): string {
  return [...parents, command.name(), command.usage()].filter(Boolean).join(' ');
}

function section(command: Command, parents: readonly string[], depth: number): string[] {
  const out = [`${'#'.repeat(depth)} ${[...parents.slice(1), command.name()].join(' ')}`, '', '```', usageOf(command, parents), '```', ''];
  if (command.description()) out.push(command.description(), '');
  const args = command.registeredArguments;
  if (args.length > 0) {
    out.push('| argument | description |', '| --- | --- |');
    for (const a of args)
      out.push(
        `| \`${a.name()}${a.variadic ? '…' : ''}\`${a.required ? '' : ' (optional)'} | ${cell(a.description)}${a.argChoices ? ` (one of ${a.argChoices.map((c) => `\`${c}\``).join(', ')})` : ''} |`,
      );
    out.push('');
  }
  const options = optionsTable(command);
  if (options) out.push(options, '');
  for (const sub of command.commands) out.push(...section(sub, [...parents, command.name()], depth + 1));
  return out;
}

/** The table of a command's options (flags, description, default), or '' when it has none. */
export function optionsTable(command: Command): string {
  const options = command.options.filter((o) => !o.hidden);
  if (options.length === 0) return '';
  const out = ['| option | description | default |', '| --- | --- | --- |'];
  for (const o of options) {
    const choices = o.argChoices ? ` (one of ${o.argChoices.map((c) => `\`${c}\``).join(', ')})` : '';
    out.push(`| \`${cell(o.flags)}\` | ${cell(o.description + choices)} | ${cell(defaultOf(o))} |`);
  }
  return out.join('\n');
}

/** The option table of one command, by its path (`profile init`), from the commands' own definitions. */
export async function commandOptionsTable(path: string): Promise<string> {
  let command: Command | undefined = await createProgram();
  for (const name of path.split(' ')) command = command?.commands.find((c) => c.name() === name);
  if (!command) throw new Error(`no command ${path}`);
  return optionsTable(command);
}

/** Markdown: one section per command (and subcommand), with its usage, arguments and options. */
export async function cliReference(): Promise<string> {
  const program = await createProgram();
  const out: string[] = [];
  for (const command of [...program.commands].sort((a, b) => a.name().localeCompare(b.name()))) {
    out.push(...section(command, [program.name()], 3));
  }
  return out.join('\n').trimEnd();
}

// ---------------------------------------------------------------------------------------------------------------
// docs/cli.md: each section's option table, and the output of `clauses --show`
// ---------------------------------------------------------------------------------------------------------------

/** The commands whose section of docs/cli.md holds their option table (`<!-- generated:start options: NAME -->`). */
export const CLI_OPTION_SECTIONS = [
  'serve',
  'run',
  'self-test',
  'doctor',
  'clauses',
  'token',
  'guest-session',
  'dpop',
  'profile init',
  'idp',
];

export const SHOWN_CLAUSE = 'AUTH-ORDER-4';

/**
 * `clauses --show AUTH-ORDER-4` as it prints, each list cut to its first entries, and its `file:line` citations shown as
 * `file:…`: the lines move with every edit of the files, the rest of the sample only when the clause's citations change.
 */
export async function clausesShowSample(): Promise<string> {
  const { followClause, formatTrail } = await import('../cli/commands/clauses.js');
  const trail = await followClause(SHOWN_CLAUSE);
  if (!trail) throw new Error(`no clause ${SHOWN_CLAUSE}`);
  const out: string[] = [`$ shop-conformance clauses --show ${SHOWN_CLAUSE}`];
  let kept = 0;
  let inList = false;
  for (const line of formatTrail(trail)) {
    if (/^\S.*:$/.test(line)) {
      inList = true;
      kept = 0;
    } else if (line === '') inList = false;
    if (inList && line.startsWith('  ') && ++kept > 2) {
      if (kept === 3) out.push('  ...');
      continue;
    }
    out.push(line.trimEnd().replace(/(\.(?:ts|js)):\d+/g, '$1:…'));
  }
  return ['```', ...out, '```'].join('\n');
}

/** The named blocks of docs/cli.md besides the reference: each section's option table, and the `clauses --show` sample. */
export async function cliSectionBlocks(): Promise<{ name: string; source: string; block: string }[]> {
  const tables = await Promise.all(
    CLI_OPTION_SECTIONS.map(async (path) => ({
      name: `options: ${path}`,
      source: `the options of \`${path}\` in cli/commands/`,
      block: await commandOptionsTable(path),
    })),
  );
  const show = { name: 'clauses --show', source: 'the output of `clauses --show`', block: await clausesShowSample() };
  return [...tables, show];
}
