#!/usr/bin/env python3
"""Tables and plots from the JSON lines of bench_kernels and bench_solve (make bench).

usage: python3 bench/report.py [--sms 132 --clock-ghz 1.98 --fp64-tflops 33.5 --fp32-tflops 66.9] [--plots DIR] FILES...
       python3 bench/report.py --results [--check]

--results: the tables of bench/RESULTS.md (between its "<!-- report: NAME -->" and "<!-- report end -->" lines) made
from the JSON lines kept in bench/data/*.jsonl, one file per date; --check only says whether they are current (make
check runs it). A record of bench/data is a JSON line of bench_solve or bench_kernels, with its date, GPU, commit and
source; where several records measure the same thing, the page shows the newest.

Kernel metrics (per kernel, documented in bench/RESULTS.md):
  MatMult, per cell (N = k+1), as the cell kernel does it (register lines, element matrices in constant memory; the 3D
  box kernel of session 6 does about the same work):
  flops 2D 8 N^3, 3D 14 N^4; shared-memory words (the gather, then each line pass reads its input tensors once
  and writes its outputs once; the last pass adds into global memory) 2D 6 N^2, 3D 10 N^3.
  One smoothing step (fused), per vertex patch (NP = 2k+1, NI = 2k-1; (cells-1)^d patches over all colors), as the
  kernel does it (register lines, matrices in constant memory, interior rows only, even-odd decomposition):
    flops of one 1D product on a line: R = patch matrix rows (k >= 4: by cells, even-odd, with H = k/2+1, HO = (k+1)/2:
    4 (H^2 + HO^2) + 8 HO + 1; k <= 3: plain, 2 s with s = 2k^2+2k-1 the structural nonzeros of the interior rows),
    E = eigenvectors (even-odd: 2 (k^2 + (k-1)^2) + 2 (k-1));
    flops 3D R (2 NP^2 + 3 NP NI + 2 NI^2) + 6 NI^2 E, 2D R (2 NP + 2 NI) + 4 NI E (the scalings by the cell sizes and
    the NI^d divisions not counted);
    shared-memory words read and written 3D 2 NP^3 + 4 NP^2 NI + 6 NP NI^2 + 12 NI^3, 2D 2 NP^2 + 4 NP NI + 8 NI^2.
  The shared-memory bound is 128 B/clock/SM x SMs x clock; "% bound" is the time that traffic needs at that
  bandwidth over the measured time.
Solver table: per (d, k, size) every solver's iterations, setup, solve, total time, solve seconds per 10^9 unknowns,
and the ratio of its time to solution to the best vertex-patch solver's.
"""
import argparse, glob, json, os, sys
from collections import defaultdict


def contractions(d, k, kernel):
    """(flops, shared-memory words) of one application per cell (matmult) or per patch (smoother)"""
    if kernel == 'matmult':
        n = k + 1
        return (8 * n**3, 6 * n**2) if d == 2 else (14 * n**4, 10 * n**3)
    np_, ni = 2 * k + 1, 2 * k - 1
    h, ho = k // 2 + 1, (k + 1) // 2
    rows = 4 * (h * h + ho * ho) + 8 * ho + 1 if k >= 4 else 2 * (2 * k * k + 2 * k - 1)
    eig = 2 * (k * k + (k - 1)**2) + 2 * (k - 1)
    if d == 2:
        return rows * (2 * np_ + 2 * ni) + 4 * ni * eig, 2 * np_**2 + 4 * np_ * ni + 8 * ni**2
    return rows * (2 * np_**2 + 3 * np_ * ni + 2 * ni**2) + 6 * ni**2 * eig, 2 * np_**3 + 4 * np_**2 * ni + 6 * np_ * ni**2 + 12 * ni**3


def kernel_rows(recs, a):
    bw = 128 * a.sms * a.clock_ghz * 1e9  # bytes/s of shared memory
    rows = []
    for r in sorted(recs, key=lambda r: (r['d'], r.get('precision', 'double'), r['k'])):
        d, k, n = r['d'], r['k'], r['cells']
        prec = r.get('precision', 'double')
        w = 4 if prec == 'single' else 8
        peak = (a.fp32_tflops if prec == 'single' else a.fp64_tflops) * 1e12
        out = {'d': d, 'k': k, 'precision': prec, 'dof': r['dof']}
        for name, units, t in (('matmult', n**d, r['matmult_s']), ('fused', (n - 1)**d, r['smooth_fused_s'])):
            fl, words = contractions(d, k, name)
            flops, bytes_ = float(fl) * units, float(words) * w * units
            out[name] = dict(gdofs=r['dof'] / t / 1e9, gflops=flops / t / 1e9, peak=100 * flops / t / peak, bound=100 * bytes_ / bw / t)
        out['fused_vs_global'] = r['smooth_global_s'] / r['smooth_fused_s']
        rows.append(out)
    return rows


def scaling(solve):
    """bench/scale.sh: every run on several ranks against the one-rank runs of the same solver and degree: strong (the
    same box: speed-up t1 / tR and efficiency) and weak (one rank with 1/R of the unknowns, within 1%: ratio tR / t1, and
    the same per iteration, since boxes of other shapes may need other counts); the device memory of rank 0's GPU, and
    against the one-GPU run of a weak pair"""
    ok = [r for r in solve if r['status'] == 'ok']
    multi = [r for r in ok if r.get('ranks', 1) > 1]
    if not multi:
        return
    single = [r for r in ok if r.get('ranks', 1) == 1]
    meta = multi[0]
    print('### Scaling (commit %s, %s; rtol 1e-8, median of %s solves; setup = KSPSetUp)\n' % (meta.get('commit'), meta.get('gpu'), meta.get('repeats', '?')))
    print('| k | solver | box | DoF | ranks | GPUs | its | DM s | setup s | solve s | s / it | strong: 1-GPU s, speed-up, efficiency | weak: 1-GPU box, s, ratio, ratio per it | GB on rank 0 (weak: / 1 GPU) |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    same = lambda r, s: (s['d'], s['k'], s['solver']) == (r['d'], r['k'], r['solver'])
    for r in sorted(multi, key=lambda r: (r['k'], r['solver'], r['dof'])):
        R = r['ranks']
        strong = next((s for s in single if same(r, s) and s['box'] == r['box']), None)
        weak = next((s for s in single if same(r, s) and abs(s['dof'] * R / r['dof'] - 1) < 0.01), None)
        st = '%.4f, %.2fx, %.0f%%' % (strong['solve_s'], strong['solve_s'] / r['solve_s'], 100 * strong['solve_s'] / r['solve_s'] / R) if strong else '-'
        wk = '%s, %.4f, %.2fx, %.2fx' % (weak['box'], weak['solve_s'], r['solve_s'] / weak['solve_s'], (r['solve_s'] / r['iterations']) / (weak['solve_s'] / weak['iterations'])) if weak else '-'
        gb, gb1 = r.get('device_mem_gb', -1), weak.get('device_mem_gb', -1) if weak else -1
        mem = ('%.1f' % gb if gb >= 0 else '-') + (' (%.2fx)' % (gb / gb1) if gb >= 0 and gb1 > 0 else '')
        print('| %d | %s | %s | %.3g M | %d | %s | %d | %.3f | %.3f | %.4f | %.4f | %s | %s | %s |' % (r['k'], r['solver'], r['box'], r['dof'] / 1e6, R, r.get('gpus', '?'), r['iterations'], r.get('dm_s', float('nan')), r['setup_s'], r['solve_s'], r['solve_s'] / r['iterations'], st, wk, mem))
    print()


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dof_of(r):
    """unknowns (nodes, boundary included) of a record: its dof, else from cells or box and k"""
    if 'dof' in r:
        return float(r['dof'])
    n = [int(c) for c in r['box'].split(',')] if 'box' in r else [r['cells']] * r['d']
    out = 1.0
    for c in n:
        out *= r['k'] * c + 1
    return out


def size(x):
    return '%.3gM' % (x / 1e6) if x < 1e9 else '%.3ge9' % (x / 1e9)


def gpu_name(r):
    return r.get('gpu', '?').replace('NVIDIA_', '').replace('_80GB_HBM3', '').replace('_', ' ')


def newest(recs, key):
    """the newest record (date, then file order) per key"""
    out = {}
    for r in recs:
        out[key(r)] = r  # records are read in date order
    return list(out.values())


def table_single(recs):
    rs = [r for r in recs if r.get('kind') == 'solve' and r.get('ranks', 1) == 1 and 'run' not in r and 'series' not in r]
    rs = newest(rs, lambda r: (r['d'], r['k'], round(dof_of(r), -6), r['solver']))
    rows = ['| DoF | k | solver | solve s | s per 1e9 DoF | its | device memory | GPU, date, commit |', '|---|---|---|---|---|---|---|---|']
    for r in sorted(rs, key=lambda r: (r['k'], dof_of(r), r['solver'])):
        n = dof_of(r)
        rows.append('| %s | %d | %s | %.3f%s | %.2f | %d | %s | %s, %s, %s |' % (size(n), r['k'], r['solver'], r['solve_s'], ' (1 solve)' if r.get('repeats', 3) == 1 else '', r['solve_s'] / n * 1e9, r['iterations'],
                                                                        '%.1f GB' % r['device_mem_gb'] if 'device_mem_gb' in r else '', gpu_name(r), r['date'], r['commit']))
    return rows


def solves_by(recs, field):
    """the solve records that have field, grouped by its value"""
    out = defaultdict(list)
    for r in recs:
        if r.get('kind') == 'solve' and field in r:
            out[r[field]].append(r)
    return out


def table_peers(recs):
    runs = solves_by(recs, 'run')
    latest = {}  # the newest run of each problem (records are read in date order)
    for rid, rs in runs.items():
        latest[(rs[0]['k'], rs[0]['case'], round(dof_of(rs[0]), -6))] = rid
    runs = {rid: runs[rid] for rid in latest.values()}
    rows = ['| problem | k, DoF | solver: its, KSPSetUp + KSPSolve s | time to solution of the best vertex-patch solver (named) against each peer | GPU, date, commit |', '|---|---|---|---|---|']
    for rid, rs in sorted(runs.items(), key=lambda kv: (kv[1][0]['k'], kv[1][0]['case'], kv[1][0]['date'])):
        r0 = rs[0]
        tot = lambda r: r.get('setup_s', 0) + r['solve_s']
        best = min((r for r in rs if r['solver'].startswith('vpatch')), key=tot)
        cells = '; '.join('%s: %d, %.3f + %.3f' % (r['solver'], r['iterations'], r.get('setup_s', 0), r['solve_s']) for r in rs)
        vs = '; '.join(('%.2fx shorter than %s' % (tot(r) / tot(best), r['solver'])) if tot(r) >= tot(best) else ('%.2fx longer than %s' % (tot(best) / tot(r), r['solver'])) for r in rs if not r['solver'].startswith('vpatch'))
        rows.append('| %s | Q_%d, %s | %s | %s (%s) | %s, %s, %s |' % (r0['case'], r0['k'], size(dof_of(r0)), cells, vs, best['solver'], gpu_name(r0), r0['date'], r0['commit']))
    return rows


def gpu_cells(by, fmt):
    """the cells of 1, 2 and 4 GPUs of a row: fmt(record, the 1-GPU record) where both exist, the record alone on one
    GPU or without a 1-GPU record ('-' where there is none)"""
    one = by.get(1)
    return [fmt(by[g], one if one else by[g]) if g in by else '-' for g in (1, 2, 4)]


def table_scaling(recs):
    series = solves_by(recs, 'series')
    rows = ['| series (vpatch-r-mixed where no solver is named) | 1 GPU: DoF, s (its) | 2 GPUs: DoF, s (its), set-up s | 4 GPUs: DoF, s (its), set-up s | GPU, dates, commits |', '|---|---|---|---|---|']
    for name, rs in sorted(series.items()):
        by = {r['gpus']: r for r in newest(rs, lambda r: r['gpus'])}
        strong = name.startswith('strong')

        def cell_of(r, one):
            t = '%s, %.4f (%d)' % (size(dof_of(r)), r['solve_s'], r['iterations'])
            if one is not r:
                t += (': %.2fx faster' % (one['solve_s'] / r['solve_s'])) if strong else (': %.2fx the 1-GPU time' % (r['solve_s'] / one['solve_s']))
                if 'setup_s' in r:
                    t += ', %.2f' % r['setup_s']
            return t
        cell = gpu_cells(by, cell_of)
        meta = '%s, %s, %s' % (gpu_name(rs[0]), '/'.join(sorted({r['date'] for r in by.values()})), '/'.join(by[g]['commit'] for g in sorted(by)))
        rows.append('| %s | %s | %s | %s | %s |' % (name, cell[0], cell[1], cell[2], meta))
    return rows


def table_kernels(recs):
    rs = newest([r for r in recs if r.get('kind') == 'kernel'], lambda r: (r['d'], r['precision'], r['k'], r['kernel']))
    ks = sorted({r['k'] for r in rs})
    rows = ['| kernel, GDoF/s | ' + ' | '.join('k = %d' % k for k in ks) + ' | GPU, date, commit |', '|---|' + '---|' * len(ks) + '---|']
    for d, prec, kern in sorted({(r['d'], r['precision'], r['kernel']) for r in rs}, key=lambda t: (-t[0], t[1], t[2])):
        sel = {r['k']: r for r in rs if (r['d'], r['precision'], r['kernel']) == (d, prec, kern)}
        r0 = next(iter(sel.values()))
        rows.append('| %dD %s, %s | ' % (d, kern, prec) + ' | '.join('%.2f' % sel[k]['gdofs'] if k in sel else '' for k in ks) + ' | %s, %s, %s |' % (gpu_name(r0), r0['date'], r0['commit']))
    return rows


def table_auxamg(recs):
    """PCAUXAMG against GAMG, same process: the newest run per (d, unknowns) that has a cold and a warm set-up and the peer"""
    runs = defaultdict(dict)
    for r in recs:
        if r.get('kind') == 'auxamg' and 'variant' in r:
            v = r['variant'].split(' ')[0]
            if v in ('cold', 'warm', 'peer,'):
                runs[(r['dim'], r['unknowns'], r['commit'], r['source'])][v] = r
    latest = {}
    for key, rs in runs.items():  # records are read in date order
        if len(rs) == 3:
            latest[(key[0], key[1])] = rs
    rows = ['| d, unknowns, nonzeros | auxamg: its, set-up cold / warm s, solve s | GAMG: its, set-up s, solve s | solve: auxamg / GAMG | set-up: GAMG / auxamg (cold, warm) | device memory auxamg, GAMG | GPU, date, commit |', '|---|---|---|---|---|---|---|']
    for (d, n), rs in sorted(latest.items()):
        c, w, g = rs['cold'], rs['warm'], rs['peer,']
        mem = lambda r: r['device_gb_after'] - r['device_gb_before']
        rows.append('| %dD, %s, %s | %d, %.3f / %.3f, %.4f | %d, %.2f, %.4f | %.2fx | %.0fx, %.0fx | %.2f, %.2f GB | %s, %s, %s |' % (d, size(n), size(c['nonzeros']), c['its'], c['setup_s'], w['setup_s'], w['solve_s'], g['its'], g['setup_s'], g['solve_s'], w['solve_s'] / g['solve_s'], g['setup_s'] / c['setup_s'], g['setup_s'] / w['setup_s'],
                                                                                                 mem(c), mem(g), gpu_name(c), c['date'], c['commit']))
    return rows


def table_auxamg_gpus(recs):
    """PCAUXAMG on 1, 2 and 4 GPUs: the newest run per (d, unknowns, GPUs) of the records that name their GPUs"""
    rs = newest([r for r in recs if r.get('kind') == 'auxamg' and 'gpus' in r], lambda r: (r['dim'], r['unknowns'], r['gpus']))
    rows = ['| d, unknowns | 1 GPU: its, set-up s, solve s | 2 GPUs: its, set-up s, solve s | 4 GPUs: its, set-up s, solve s | GPU, dates, commits |', '|---|---|---|---|---|']
    for d, n in sorted({(r['dim'], r['unknowns']) for r in rs}):
        by = {r['gpus']: r for r in rs if (r['dim'], r['unknowns']) == (d, n)}
        cell = gpu_cells(by, lambda r, one: '%d, %.2f, %.4f' % (r['its'], r['setup_s'], r['solve_s']) + ('' if one is r else ' (solve speed-up %.2fx)' % (one['solve_s'] / r['solve_s'])))
        meta = '%s, %s, %s' % (gpu_name(next(iter(by.values()))), '/'.join(sorted({r['date'] for r in by.values()})), '/'.join(by[g]['commit'] for g in sorted(by)))
        rows.append('| %dD, %s | %s | %s | %s | %s |' % (d, size(n), cell[0], cell[1], cell[2], meta))
    return rows


TABLES = {'single': table_single, 'peers': table_peers, 'scaling': table_scaling, 'kernels': table_kernels, 'auxamg': table_auxamg, 'auxamg_gpus': table_auxamg_gpus}


def results_page(check):
    recs = []
    for f in sorted(glob.glob(os.path.join(ROOT, 'bench', 'data', '*.jsonl'))):
        recs += [json.loads(l) for l in open(f) if l.strip().startswith('{')]
    recs.sort(key=lambda r: r.get('date', ''))  # stable: file order within a date
    path = os.path.join(ROOT, 'bench', 'RESULTS.md')
    text = open(path).read()
    out = text
    for name, fn in TABLES.items():
        begin, end = '<!-- report: %s -->' % name, '<!-- report end -->'
        if begin not in out:
            sys.exit('bench/report.py: bench/RESULTS.md has no "%s" block' % begin)
        a = out.index(begin) + len(begin)
        b = out.index(end, a)
        out = out[:a] + '\n' + '\n'.join(fn(recs)) + '\n' + out[b:]
    if check:
        if out != text:
            sys.exit('bench/report.py: the tables of bench/RESULTS.md are not those of bench/data: run python3 bench/report.py --results')
        print('bench/RESULTS.md: the tables are those of bench/data (%d records)' % len(recs))
        return
    open(path, 'w').write(out)


def main():
    if '--results' in sys.argv:
        return results_page('--check' in sys.argv)
    ap = argparse.ArgumentParser()
    ap.add_argument('--sms', type=int, default=132)
    ap.add_argument('--clock-ghz', type=float, default=1.98)
    ap.add_argument('--fp64-tflops', type=float, default=33.5)
    ap.add_argument('--fp32-tflops', type=float, default=66.9)
    ap.add_argument('--plots', default='')
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    kern, solve, femto = [], [], []
    for f in a.files:
        for line in open(f):
            line = line.strip()
            if not line.startswith('{'):
                continue
            r = json.loads(line)
            (kern if 'matmult_s' in r else femto if 'interpolation_us' in r else solve).append(r)

    if femto:
        print("### femto's element kernels on 1e6 hexahedra (commit %s, %s), us\n" % (femto[0].get('commit'), femto[0].get('gpu')))
        print('| p | interpolation | integration, atomics | integration, colored | element vectors + gather | pointwise G | interp + G + integrate |')
        print('|---|---|---|---|---|---|---|')
        for r in femto:
            print('| %d | %.0f | %.0f | %.0f | {%.0f, %.0f} | %.0f | %.0f |' % (r['p'], r['interpolation_us'], r['integration_atomic_us'], r['integration_colored_us'], r['integration_elements_us'], r['gather_us'], r['pointwise_us'], r['operator_us']))
        print()

    if kern:
        meta = kern[0]
        print('### Kernel throughput and roofline (commit %s, %s)\n' % (meta.get('commit'), meta.get('gpu')))
        print('Shared-memory bound: 128 B/clock/SM x %d SMs x %.2f GHz = %.1f TB/s; peaks FP64 %.1f, FP32 %.1f TFLOP/s.\n' % (a.sms, a.clock_ghz, 128 * a.sms * a.clock_ghz / 1e3, a.fp64_tflops, a.fp32_tflops))
        print('| d | k | precision | DoF | MatMult GDoF/s | MatMult GFLOP/s | % peak | % shared bound | fused smoother GDoF/s | GFLOP/s | % peak | % shared bound | fused vs global |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
        rows = kernel_rows(kern, a)
        for o in rows:
            m, s = o['matmult'], o['fused']
            print('| %d | %d | %s | %.3g M | %.2f | %.0f | %.1f | %.0f | %.2f | %.0f | %.1f | %.0f | %.2fx |' % (
                o['d'], o['k'], o['precision'], o['dof'] / 1e6, m['gdofs'], m['gflops'], m['peak'], m['bound'], s['gdofs'], s['gflops'], s['peak'], s['bound'], o['fused_vs_global']))
        print()
    if solve:
        meta = solve[0]
        print('### Time to solution (commit %s, %s; rtol 1e-8, median of %s solves)\n' % (meta.get('commit'), meta.get('gpu'), next((r['repeats'] for r in solve if 'repeats' in r), '?')))
        groups = defaultdict(list)
        for r in solve:
            groups[(r['d'], r['k'], r['cells'])].append(r)
        print('DM s: DMSetUp and the global vectors, shared by every solver and not in the total (KSPSetUp + KSPSolve).\n')
        print('| d | k | cells | DoF | solver | its | DM s | setup s | solve s | total s | solve s / 1e9 DoF | L2 error | total / best vpatch |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
        for key in sorted(groups):
            rs = groups[key]
            best = min((r['setup_s'] + r['solve_s'] for r in rs if r['status'] == 'ok' and r['solver'].startswith('vpatch')), default=None)
            for r in rs:
                if r['status'] != 'ok':
                    print('| %d | %d | %d | %.3g M | %s | %s |  |  |  |  |  |  |  |' % (r['d'], r['k'], r['cells'], r['dof'] / 1e6, r['solver'], r['status']))
                    continue
                tot = r['setup_s'] + r['solve_s']
                l2 = '%.2e' % r['l2_error'] if r.get('l2_error') is not None else 'b = 1'
                dm = '%.3f' % r['dm_s'] if 'dm_s' in r else '-'
                print('| %d | %d | %d | %.3g M | %s | %d | %s | %.3f | %.3f | %.3f | %.2f | %s | %s |' % (
                    r['d'], r['k'], r['cells'], r['dof'] / 1e6, r['solver'], r['iterations'], dm, r['setup_s'], r['solve_s'], tot, r['solve_s'] / r['dof'] * 1e9, l2,
                    ('%.1fx' % (tot / best)) if best else '-'))
        print()
        scaling(solve)
    if a.plots:
        try:
            import matplotlib
            matplotlib.use('Agg')
            import matplotlib.pyplot as plt
        except ImportError:
            print('(no matplotlib: pip install matplotlib for the plots)', file=sys.stderr)
            return
        os.makedirs(a.plots, exist_ok=True)
        for d in sorted({r['d'] for r in solve}):
            ks = sorted({r['k'] for r in solve if r['d'] == d})
            fig, axes = plt.subplots(1, len(ks), figsize=(4 * len(ks), 3.5), squeeze=False)
            names = sorted({r['solver'] for r in solve if r['d'] == d})
            color = {name: 'C%d' % i for i, name in enumerate(names)}  # one color per solver in every panel
            for ax, k in zip(axes[0], ks):
                for name in names:
                    pts = sorted((r['dof'], r['solve_s'] / r['dof'] * 1e9) for r in solve if r['d'] == d and r['k'] == k and r['solver'] == name and r['status'] == 'ok')
                    if pts:
                        ax.loglog([p[0] for p in pts], [p[1] for p in pts], 'o-', color=color[name], label=name)
                ax.set_title('%dD Q_%d' % (d, k))
                ax.set_xlabel('DoF')
                ax.set_ylabel('solve s per 1e9 DoF')
            handles = [plt.Line2D([], [], color=color[name], marker='o', label=name) for name in names]
            axes[0][0].legend(handles=handles, fontsize=7)
            fig.tight_layout()
            fig.savefig(os.path.join(a.plots, 'solve_%dd.png' % d), dpi=100)
        if kern:
            rows = kernel_rows(kern, a)
            fig, ax = plt.subplots(figsize=(6, 4))
            for d in (2, 3):
                for prec in ('double', 'single'):
                    rs = [o for o in rows if o['d'] == d and o['precision'] == prec]
                    if rs:
                        ax.plot([o['k'] for o in rs], [o['matmult']['gdofs'] for o in rs], 'o-', label='%dD MatMult %s' % (d, prec))
                        ax.plot([o['k'] for o in rs], [o['fused']['gdofs'] for o in rs], 's--', label='%dD fused smoother %s' % (d, prec))
            ax.set_xlabel('k')
            ax.set_ylabel('GDoF/s')
            ax.set_yscale('log')
            ax.legend(fontsize=7)
            fig.tight_layout()
            fig.savefig(os.path.join(a.plots, 'kernels.png'), dpi=100)


if __name__ == '__main__':
    main()
