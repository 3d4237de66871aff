// Opens notebooks in JupyterLab in Debian's Chromium, as a student does, and
// records what each shows after Run All Cells.
//
// usage: node run_all.mjs NODE_DIR LAB_URL TOKEN SHOT_DIR OUT_JSON NOTEBOOK...
//
// NODE_DIR is where setup-node installed playwright-core (pinned; it drives
// /usr/bin/chromium, and downloads no browser). For each NOTEBOOK (a path
// under the server's root): open it, which should start the kernel the
// notebook names; if JupyterLab asks for a kernel instead, record that and
// pick "Rust (puzzlebook)" in its dialog; wait until the notebook's session has
// its kernel, connected and answering; Edit > Clear Outputs of All Cells, so
// that only this run's outputs count; Run > Run All Cells; wait until every
// code cell has its execution count; then record, for each code cell, its
// prompt and execution count, its error outputs (from the page and from the
// notebook's model), its outputs as the model holds them, and how many HTML
// tables and SVG images it shows, and
// take a screenshot; for a notebook that did not finish, also what its kernel
// and the kernel's process were doing. In the first notebook, also ask for
// completion in a new cell (Tab after `puzzlebook::tw`), whose text is not
// saved: autosave is off. Then shut the notebook's kernel down. Writes one
// JSON object to OUT_JSON; the Rust test (cli/tests/testsuite/jupyterlab.rs)
// decides what passes.

import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [nodeDir, url, token, shotDir, outPath, ...notebooks] = process.argv.slice(2);
const require = createRequire(join(nodeDir, 'package.json'));
const { chromium } = require('playwright-core');

// As the machine's notes have Chromium started here: no network but the
// page's, no first-run work.
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// How long Run All may take for one notebook: enough for a kernel build
// folder that has yet to build polars (chapter 04) on a loaded machine.
const RUN_LIMIT_MS = 20 * 60 * 1000;
// How long a notebook's kernel may take to start and answer once JupyterLab
// names it: a cold build folder builds nothing before the kernel answers.
const KERNEL_LIMIT_MS = 4 * 60 * 1000;

async function api(method, path) {
  const r = await fetch(`${url}${path}`, { method, headers: { Authorization: `token ${token}` } });
  return method === 'GET' ? r.json() : null;
}

/// Opens `name` in `page`, runs all its cells, and returns what it shows.
async function runAll(page, name, problems) {
  const opened = Date.now();
  // `reset`: no tab of an earlier notebook comes back with JupyterLab's
  // saved workspace.
  await page.goto(`${url}/lab/tree/${name.split('/').map(encodeURIComponent).join('/')}?reset&token=${token}`);
  await page.waitForSelector('.jp-NotebookPanel .jp-Cell', { timeout: 120000 });
  // The kernel JupyterLab starts, or its question which one.
  let asked = false;
  const kernelName = () => page.textContent('.jp-NotebookPanel-toolbar .jp-Toolbar-kernelName').catch(() => '');
  for (let i = 0; i < 240; i++) {
    if (await page.$('.jp-Dialog select')) { asked = true; break; }
    if (/puzzlebook/i.test(await kernelName())) break;
    await page.waitForTimeout(250);
  }
  if (asked) {
    await page.selectOption('.jp-Dialog select', { label: 'Rust (puzzlebook)' });
    await page.click('.jp-Dialog button:has-text("Select")');
  }
  // Run All only once the notebook's session has its kernel, connected and
  // answering kernel_info. The toolbar shows the kernel's name while
  // JupyterLab is still creating the session, and a Run All in that window
  // is lost in the page: each cell's execution throws "Session has no
  // kernel." before any request is sent, and the cells stay at [*] for ever
  // (jupyterlab/jupyterlab#8563). It happened here under load, about one
  // notebook in thirty, with the kernel idle and never asked to run a cell.
  const ready = await page.evaluate(async limit => {
    const kernel = () => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel;
    const until = Date.now() + limit;
    while (Date.now() < until) {
      const k = kernel();
      if (k && k.connectionStatus === 'connected') {
        const info = await Promise.race([k.info.then(() => true), new Promise(r => setTimeout(() => r(false), until - Date.now()))]);
        return info;
      }
      await new Promise(r => setTimeout(r, 250));
    }
    return false;
  }, KERNEL_LIMIT_MS).catch(() => false);
  if (!ready) problems.push(`the notebook's kernel was not connected and answering within ${KERNEL_LIMIT_MS / 1000} s of the kernel's name showing`);
  const readySeconds = ready ? (Date.now() - opened) / 1000 : null;
  await page.click('.lm-MenuBar-itemLabel:text-is("Edit")');
  await page.click('.lm-Menu-itemLabel:text-is("Clear Outputs of All Cells")');
  const cleared = await page.$$eval('.jp-Notebook .jp-CodeCell .jp-InputPrompt',
    ps => ps.every(p => !/\d/.test(p.textContent)));
  await page.click('.lm-MenuBar-itemLabel:text-is("Run")');
  await page.click('.lm-Menu-itemLabel:text-is("Run All Cells")');
  const started = Date.now();
  let done = false;
  let firstResult = null;
  while (Date.now() - started < RUN_LIMIT_MS) {
    const numbered = await page.$$eval('.jp-Notebook .jp-CodeCell .jp-InputPrompt',
      ps => ps.map(p => /^\[\d+\]:$/.test(p.textContent.trim())));
    if (firstResult === null && numbered[0]) firstResult = Date.now();
    done = numbered.length > 0 && numbered.every(n => n);
    if (done) break;
    await page.waitForTimeout(250);
  }
  const seconds = (Date.now() - started) / 1000;
  const cells = await page.$$eval('.jp-Notebook .jp-CodeCell', cs => cs.map(c => {
    const outputs = c.querySelectorAll('.jp-OutputArea-output');
    const within = sel => [...outputs].reduce((n, o) => n + o.querySelectorAll(sel).length, 0);
    const errors = [...outputs].filter(o => o.getAttribute('data-mime-type') === 'application/vnd.jupyter.error'
      || o.querySelector('[data-mime-type="application/vnd.jupyter.error"]'));
    return {
      prompt: (c.querySelector('.jp-InputPrompt')?.textContent || '').trim(),
      errors: errors.map(e => e.textContent.slice(0, 400)),
      tables: within('table'),
      svgs: within('img[src^="data:image/svg+xml"]') + within('svg'),
    };
  }));
  // What the notebook's model holds, which the page may not draw as such:
  // JupyterLab draws an error's traceback as standard error, so the page
  // alone cannot tell a failed cell. The server runs with
  // --LabApp.expose_app_in_browser=True for this.
  const model = await page.evaluate(() => {
    const panel = window.jupyterapp?.shell?.currentWidget;
    if (!panel?.content?.widgets) return null;
    return panel.content.widgets.filter(c => c.model.type === 'code').map(c => ({
      count: c.model.executionCount,
      errors: c.model.outputs.toJSON().filter(o => o.output_type === 'error')
        .map(o => `${o.ename}: ${o.evalue}`.slice(0, 400)),
      // The end of what the cell printed: for a cell that never finished,
      // the kernel's loading notes say what it was waiting for.
      printed: c.model.outputs.toJSON().filter(o => o.output_type === 'stream')
        .map(o => Array.isArray(o.text) ? o.text.join('') : o.text).join('').slice(-600),
      // Every output, as JupyterLab would save it, for the test to hold
      // against the committed ones.
      outputs: c.model.outputs.toJSON(),
    }));
  });
  if (model === null) {
    problems.push('no notebook model in the page (window.jupyterapp: is expose_app_in_browser on?)');
  } else if (model.length !== cells.length) {
    problems.push(`the model has ${model.length} code cells, the page ${cells.length}`);
  } else {
    cells.forEach((c, i) => {
      c.errors.push(...model[i].errors);
      c.count = model[i].count;
      c.printed = model[i].printed;
      c.outputs = model[i].outputs;
    });
  }
  const kernel = await kernelName();
  // For a notebook that did not finish: the kernel's state as the page
  // shows it (JupyterLab's status bar: Idle, Busy, or Unknown until the page
  // has seen an execution's status) and as the server's own subscription to
  // the kernel sees it, which tells a kernel that stopped answering from
  // requests or messages lost on the way.
  const status = await page.evaluate(() => {
    const ctx = window.jupyterapp?.shell?.currentWidget?.sessionContext;
    const k = ctx?.session?.kernel;
    return { shown: ctx?.kernelDisplayStatus ?? null, connection: k?.connectionStatus ?? null,
      status: k?.status ?? null, id: k?.id ?? null };
  }).catch(e => ({ error: `${e}` }));
  const server = status.id ? await api('GET', `/api/kernels/${status.id}`).catch(e => `${e}`) : null;
  const kernelProcessState = !done && status.id ? await kernelProcess(status.id) : null;
  return {
    asked, cleared, done, seconds, open_seconds: (started - opened) / 1000, ready_seconds: readySeconds,
    first_result_seconds: firstResult === null ? null : (firstResult - opened) / 1000,
    kernel, cells, problems, status, server, process: kernelProcessState,
  };
}

/// What the kernel process `id` (its connection file is kernel-<id>.json) is
/// doing, for a notebook that did not finish: the CPU each of its threads
/// and its children's used over two seconds (a thread that spins shows
/// about 200 ticks), and each thread's stack, by gdb when it is installed.
async function kernelProcess(id) {
  const pids = readdirSync('/proc').filter(p => /^\d+$/.test(p));
  const cmdline = p => { try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0'); } catch { return []; } };
  const pid = pids.find(p => cmdline(p).some(a => a.endsWith(`kernel-${id}.json`)));
  if (!pid) return { error: `no process has kernel-${id}.json on its command line` };
  const family = [pid, ...pids.filter(p => {
    try { return readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1] === pid; } catch { return false; }
  })];
  const ticks = () => Object.fromEntries(family.flatMap(p => {
    try {
      return readdirSync(`/proc/${p}/task`).map(t => {
        const stat = readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [`${p}/${t} ${name}`, { state: f[0], ticks: Number(f[11]) + Number(f[12]) }];
      });
    } catch { return []; }
  }));
  const before = ticks();
  await new Promise(r => setTimeout(r, 2000));
  const after = ticks();
  const cpu = Object.entries(after).map(([k, v]) => `${k} ${v.state} ${v.ticks - (before[k] ?? v).ticks}`);
  // gdb's own words when it shows no stack (it cannot attach, say).
  let stacks;
  try {
    const gdb = spawnSync('gdb', ['-p', pid, '-batch', '-ex', 'thread apply all bt 16'],
      { encoding: 'utf8', timeout: 120000, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = `${gdb.stdout ?? ''}`.split('\n').filter(l => /^(Thread |#)/.test(l));
    stacks = lines.length > 0
      ? lines.map(l => l.slice(0, 200)).join('\n')
      : `gdb showed no stack (${gdb.error ?? `exit ${gdb.status}`}): ${`${gdb.stderr ?? ''}`.slice(-600)}`;
  } catch (e) {
    stacks = `gdb: ${e.message.split('\n')[0]}`;
  }
  return { pid, family, cpu, stacks };
}

/// In a new cell below the active one, types `puzzlebook::tw` and presses
/// Tab, as a student asks for completion, then Enter to take the first item
/// the completer offers; returns the items and the cell's text after.
async function complete(page) {
  await page.click('.jp-NotebookPanel-toolbar [data-command="notebook:insert-cell-below"]');
  const editor = '.jp-Notebook .jp-Cell.jp-mod-active .cm-content';
  await page.click(editor);
  await page.keyboard.type('puzzlebook::tw');
  await page.keyboard.press('Tab');
  const text = () => page.textContent(editor);
  let items = [];
  for (let i = 0; i < 120 && items.length === 0; i++) {
    items = await page.$$eval('.jp-Completer .jp-Completer-item .jp-Completer-match',
      ms => ms.map(m => m.textContent.trim()));
    // With one match, JupyterLab may put it in without a list.
    if (items.length === 0 && (await text()) !== 'puzzlebook::tw') break;
    if (items.length === 0) await page.waitForTimeout(250);
  }
  if (items.length > 0) {
    await page.keyboard.press('Enter');
    for (let i = 0; i < 40 && (await text()) === 'puzzlebook::tw'; i++) await page.waitForTimeout(250);
  }
  return { items, text: await text() };
}

const out = { notebooks: {} };
try {
  for (const name of notebooks) {
    // A browser context of its own for each notebook.
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', e => problems.push(`page error: ${e}`));
    page.on('crash', () => problems.push('the page crashed (Chromium\'s renderer ended)'));
    const shot = join(shotDir, name.replace(/[^A-Za-z0-9.-]/g, '_') + '.png');
    try {
      out.notebooks[name] = await runAll(page, name, problems);
      // Completion in the editor, once, in the first notebook's session.
      if (name === notebooks[0]) out.completion = await complete(page);
    } catch (e) {
      // What stood in the way, for the test's message.
      const dialog = await page.textContent('.jp-Dialog').catch(() => null);
      problems.push(`${e.message.split('\n')[0]}; dialog: ${dialog}`);
      out.notebooks[name] = { problems };
    }
    await page.screenshot({ path: shot }).catch(() => {});
    out.notebooks[name].screenshot = shot;
    await context.close();
    for (const s of await api('GET', '/api/sessions')) await api('DELETE', `/api/sessions/${s.id}`);
  }
} finally {
  await browser.close();
  writeFileSync(outPath, JSON.stringify(out, null, 1));
}
