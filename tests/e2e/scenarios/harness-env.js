// Harness self-test: the Bash tool sees only loopback, the PATH and ROZ_HOME
// of the caller, and the throwaway HOME and work tree.
'use strict';
module.exports = {
  prompt: 'Show me the environment.',
  plugin: false, // tests the harness, not roz
  reply(ctx) {
    if (ctx.turn === 0) {
      return [{
        type: 'tool_use',
        name: 'Bash',
        input: {
          command: 'echo "IFACES=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\\n" ",")"; ' +
            'echo "ROZ_HOME=${ROZ_HOME-unset}"; echo "PATH=$PATH"; echo "HOME=$HOME"; echo "PWD=$(pwd)"; ' +
            'git log --oneline | wc -l | sed "s/^/COMMITS=/"; ls | tr "\\n" "," | sed "s/^/FILES=/"; echo',
          description: 'Show the environment',
        },
      }];
    }
    const out = ctx.toolResults.map((r) => r.text).join('\n');
    return `ENV REPORT\n${out}`;
  },
  check(run) {
    const result = run.stream.find((e) => e.type === 'result');
    if (!result || result.is_error) return `bad result ${JSON.stringify(result)}`;
    const text = String(result.result);
    const get = (k) => { const m = text.match(new RegExp(`^${k}=(.*)$`, 'm')); return m ? m[1] : null; };
    if (get('IFACES') !== 'lo,') return `network interfaces visible to the Bash tool: ${get('IFACES')}`;
    const wantRoz = process.env.ROZ_HOME === undefined ? 'unset' : process.env.ROZ_HOME;
    if (get('ROZ_HOME') !== wantRoz) return `ROZ_HOME=${get('ROZ_HOME')}, expected ${wantRoz}`;
    // Claude Code may add entries to PATH; the caller's entries must all be there, in order.
    const seen = (get('PATH') || '').split(':');
    let at = 0;
    for (const p of (process.env.PATH || '').split(':')) {
      const i = seen.indexOf(p, at);
      if (i < 0) return `PATH entry ${p} missing in the Bash tool (PATH=${get('PATH')})`;
      at = i + 1;
    }
    if (get('HOME') !== `${run.dir}/home`) return `HOME=${get('HOME')}`;
    if (get('PWD') !== `${run.dir}/work`) return `PWD=${get('PWD')}`;
    if (get('COMMITS') !== '1' || get('FILES') !== 'README.md,') return `work tree: COMMITS=${get('COMMITS')} FILES=${get('FILES')}`;
  },
};
