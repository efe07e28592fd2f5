/** One Dockerfile instruction with its continuation lines joined. */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** A build stage: its FROM instruction and what follows up to the next FROM. */
export interface Stage {
  from: Instruction;
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Splits a Dockerfile into instructions (comments and blank lines dropped). */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  let startLine = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (pending !== '' && line.startsWith('#')) return;
    if (pending === '') startLine = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    const match = /^(\S+)\s*(.*)$/s.exec(full);
    if (match)
      instructions.push({ keyword: match[1].toUpperCase(), args: match[2], line: startLine });
  });
  return instructions;
}

/** The stages, with `${ARG}` in FROM replaced by the ARG's default from before the first FROM. */
export function stagesOf(instructions: Instruction[]): Stage[] {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args
        .split(/\s+/)
        .filter((word) => !word.startsWith('--'));
      const resolved = image.replace(
        /\$\{?(\w+)\}?/g,
        (_, arg: string) => globalArgs.get(arg) ?? '',
      );
      stages.push({
        from: instruction,
        image: resolved,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (instruction.keyword === 'ARG') {
        const [key, value = ''] = instruction.args.split('=', 2);
        globalArgs.set(key.trim(), value.trim());
      }
    } else {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return stages;
}

/** The JSON (exec) form of CMD/ENTRYPOINT/HEALTHCHECK CMD arguments, or undefined. */
export function execForm(args: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}
