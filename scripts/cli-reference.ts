// The option reference of docs/cli.md, generated from the commands' own commander definitions (cli/program.ts), so that
// the docs list exactly the options each command accepts. scripts/gen-docs.ts writes it between the markers.
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
  const options = command.options.filter((o) => !o.hidden);
  if (options.length > 0) {
    out.push('| option | description | default |', '| --- | --- | --- |');
    for (const o of options) {
      const choices = o.argChoices ? ` (one of ${o.argChoices.map((c) => `\`${c}\``).join(', ')})` : '';
      out.push(`| \`${cell(o.flags)}\` | ${cell(o.description + choices)} | ${cell(defaultOf(o))} |`);
    }
    out.push('');
  }
  for (const sub of command.commands) out.push(...section(sub, [...parents, command.name()], depth + 1));
  return out;
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
