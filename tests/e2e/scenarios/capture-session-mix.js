// Capture: an ordinary coding session of 100 tool calls, for the benchmark
// that replays what a session's hooks cost (bench/session-mix.tsv, made from
// this capture by bench/session-mix.sh). The agent explores a small C
// project, reads, searches and runs commands, edits ten files, writes new
// tests, asks an Explore subagent to look around, and finishes. The mix, by
// tool: Read 38 (4 of them the subagent's), Bash 32, Edit 20, Write 6,
// ToolSearch 2, Agent 1, ListAgents 1: reads and commands first, as a
// session spends its calls.
'use strict';
const fs = require('fs');
const path = require('path');

const MODULES = 10;

function moduleText(k) {
  return `/* mod${k}.c - part ${k} of the example */\n#include "mod.h"\n\nint mod${k}_value(void)\n{\n\treturn ${k}; /* TODO ${k}: compute it */\n}\n`;
}

function work(name) {
  return path.join(process.env.ROZ_E2E_WORK, name);
}

const read = (name) => ({ type: 'tool_use', name: 'Read', input: { file_path: work(name) } });
const bash = (command, description = 'Look at the project') => ({ type: 'tool_use', name: 'Bash', input: { command, description } });
// Edits 0-9 finish a module's TODO; edits 10-19 then change the first
// comment of module k - 10.
function edit(k) {
  const m = k % MODULES;
  const input = k < MODULES
    ? { file_path: work(`src/mod${m}.c`), old_string: `/* TODO ${m}: compute it */`, new_string: `/* computed: ${m} */` }
    : { file_path: work(`src/mod${m}.c`), old_string: `/* mod${m}.c - part ${m} of the example */`, new_string: `/* mod${m}.c - part ${m}, computed */` };
  return { type: 'tool_use', name: 'Edit', input };
}
const write = (name, content) => ({ type: 'tool_use', name: 'Write', input: { file_path: work(name), content } });

// The main agent's turns, each a batch of tool calls made at once (built
// when the fake model runs, which knows the work tree).
const turns = () => [
  [bash('ls -la'), bash('git status --short'), bash('git log --oneline | head -5')],
  [read('README.md'), read('Makefile'), read('src/mod.h')],
  [bash('grep -rn TODO src | head -20'), bash('wc -l src/*.c')],
  [{ type: 'tool_use', name: 'Agent', input: { subagent_type: 'Explore', description: 'Look around the sources', prompt: 'Find where the module values are used.', run_in_background: false } }],
  [read('src/mod0.c'), read('src/mod1.c'), read('src/mod2.c'), read('src/mod3.c')],
  [read('src/mod4.c'), read('src/mod5.c'), read('src/mod6.c')],
  [read('src/mod7.c'), read('src/mod8.c'), read('src/mod9.c')],
  [bash('make -n'), bash('cat src/mod.h | head -20')],
  [edit(0)], [edit(1)], [read('src/mod0.c'), read('src/mod1.c')], [bash('git diff --stat')],
  [edit(2)], [edit(3)], [bash('grep -n computed src/*.c')], [edit(4)], [edit(5)],
  [read('src/mod4.c'), read('src/mod5.c')], [edit(6)], [edit(7)], [edit(8)], [edit(9)],
  [bash('git diff | head -40'), bash('grep -rn TODO src || true')],
  [{ type: 'tool_use', name: 'ToolSearch', input: { query: 'select:NotebookEdit' } }],
  [write('tests/test_mod0.c', '#include "../src/mod.h"\nint main(void) { return mod0_value(); }\n')],
  [write('tests/test_mod1.c', '#include "../src/mod.h"\nint main(void) { return mod1_value() - 1; }\n')],
  [write('tests/test_mod2.c', '#include "../src/mod.h"\nint main(void) { return mod2_value() - 2; }\n')],
  [bash('ls tests'), read('tests/test_mod0.c')],
  [bash('cc -fsyntax-only -Isrc src/mod0.c src/mod1.c && echo ok', 'Compile two modules')],
  [read('src/mod2.c'), read('src/mod3.c'), read('src/mod6.c')],
  [edit(10), edit(11)],
  [bash('cc -fsyntax-only -Isrc src/*.c && echo ok', 'Compile every module')],
  [read('Makefile'), bash('git status --short')],
  [edit(12), edit(13), edit(14)],
  [read('src/mod7.c'), read('src/mod8.c'), read('src/mod9.c')],
  [edit(15), edit(16), edit(17)],
  [bash('git diff --stat'), bash('grep -c computed src/*.c')],
  [write('tests/test_mod3.c', '#include "../src/mod.h"\nint main(void) { return mod3_value() - 3; }\n')],
  [write('tests/README.md', 'One test per module.\n')],
  [write('CHANGELOG.md', '- the modules compute their values\n')],
  [edit(18), edit(19)],
  [{ type: 'tool_use', name: 'ToolSearch', input: { query: 'notebook' } }],
  [{ type: 'tool_use', name: 'ListAgents', input: {} }],
  [bash('cat CHANGELOG.md'), bash('ls tests | wc -l'), bash('git status --short | wc -l')],
  [read('README.md'), read('CHANGELOG.md'), read('tests/README.md')],
  [bash('cc -fsyntax-only -Isrc tests/test_mod0.c && echo ok', 'Compile a test'), bash('git diff --stat | tail -1')],
  [bash('grep -rn mod src/mod.h'), bash('head -3 src/mod9.c'), bash('tail -2 src/mod0.c')],
  [bash('git add -A && git status --short | head', 'Stage the changes'), bash('git diff --cached --stat | tail -1')],
  [read('src/mod.h'), read('Makefile'), read('tests/test_mod1.c'), read('tests/test_mod2.c'), read('tests/test_mod3.c'), read('CHANGELOG.md')],
  [bash('git log --oneline | wc -l'), bash('ls src | wc -l'), bash('grep -c value src/mod.h'), bash('date +%Y'), bash('git diff --cached --stat | head -3')],
];

module.exports = {
  prompt: 'SESSION_ID=cap-session-mix Finish the TODOs in src/ and add a test per module.',
  timeout: 180,
  setup({ work: dir, sh }) {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.mkdirSync(path.join(dir, 'tests'));
    fs.writeFileSync(path.join(dir, 'src', 'mod.h'), Array.from({ length: MODULES }, (_, k) => `int mod${k}_value(void);`).join('\n') + '\n');
    for (let k = 0; k < MODULES; k++) fs.writeFileSync(path.join(dir, 'src', `mod${k}.c`), moduleText(k));
    fs.writeFileSync(path.join(dir, 'Makefile'), 'all:\n\tcc -Isrc -c src/*.c\n');
    sh('git config user.name e2e && git config user.email e2e@example.invalid && git config commit.gpgsign false');
    sh('git add -A && git commit -q -m "the example project"');
  },
  reply(ctx) {
    if (ctx.isSubagent) {
      // the Explore subagent: four reads, then its answer
      const reads = ['src/mod.h', 'src/mod0.c', 'Makefile', 'README.md'];
      return ctx.turn < reads.length ? [read(reads[ctx.turn])] : 'The values are used only by their own modules.';
    }
    const all = turns();
    if (ctx.turn < all.length) return all[ctx.turn];
    return 'The TODOs are done and every module has a test.';
  },
};
