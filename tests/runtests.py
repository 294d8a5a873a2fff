#!/usr/bin/env python3
"""petsc-vpatch test runner.

Runs every /*TEST ... TEST*/ block of tutorials/*.c, tests/test_*.c and (in comments) tutorials/*.py (PETSc's format, a
subset; a Python tutorial's tests are named <name>_py[_suffix] and run with python3:
`test:` entries with suffix, nsize, args, requires, output_file, expect_error, rtol, atol, timeout).

- A test with an expected output (tests/output/<exe>_<suffix>.out) passes when its output matches:
  words equal, integers equal, floating-point numbers within rtol (default 1e-2 relative) or, where given, within
  atol (absolute: for numbers at the round-off level, such as the residual of an exact coarse solve, which differ
  between CPU and GPU runs).
- `output_file: none`: the program checks itself (PetscCheck); it passes when it exits with 0.
  `output_file: NAME`: compare with tests/output/NAME.out (several runs against one reference).
- `expect_error: text`: it passes when the program fails and its output contains the text.
- Every run adds -malloc_debug -malloc_dump; a report of unfreed memory fails the test.
- `requires: cuda` tests run only with --gpu; elsewhere they are reported as skipped.
- `requires: slow` tests (minutes each) run only with --slow; elsewhere they are reported as skipped.
Then the documentation a script keeps current (docs/*.py --check: tests docs_<name>; bench/report.py --results --check:
bench_results), and every line of tests/bad_input.txt: a bad input, the exit status it must end with and a phrase its output must
contain (tests named bad_input_<line>).
Ends with the line `N passed, N failed, N skipped`; exit status 1 when any test failed.
"""
import argparse, os, re, subprocess, sys, time, glob

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUM = re.compile(r'^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$')


def parse_tests(path):
    text = open(path).read()
    m = re.search(r'/\*TEST(.*?)TEST\*/', text, re.S)
    if not m:
        return []
    tests, cur = [], None
    for line in m.group(1).splitlines():
        s = line.strip()
        if path.endswith('.py'):  # the block sits in comments: "# test:", "#   args: ..."
            s = s[1:].strip() if s.startswith('#') else s
        if not s or s.startswith('#'):
            continue
        if s == 'test:':
            cur = {'suffix': '', 'nsize': '1', 'args': '', 'requires': '', 'output_file': '', 'expect_error': '', 'rtol': '1e-2', 'atol': '0', 'timeout': '900'}
            tests.append(cur)
            continue
        key, _, val = s.partition(':')
        if cur is not None:
            cur[key.strip()] = val.strip().strip('"')
    return tests


def tokens(s):
    return s.replace(',', ' , ').replace('=', ' = ').replace('(', ' ( ').replace(')', ' ) ').split()


def compare(out, ref, rtol, atol=0.0):
    a, b = tokens(out), tokens(ref)
    if len(a) != len(b):
        return 'output has %d words, expected %d' % (len(a), len(b))
    for x, y in zip(a, b):
        if x == y:
            continue
        if NUM.match(x) and NUM.match(y):
            if re.match(r'^[-+]?\d+$', x) and re.match(r'^[-+]?\d+$', y):
                return 'integer %s, expected %s' % (x, y)
            fx, fy = float(x), float(y)
            if abs(fx - fy) <= max(rtol * max(abs(fx), abs(fy)), atol):
                continue
            return 'number %s, expected %s (rtol %g, atol %g)' % (x, y, rtol, atol)
        return "word '%s', expected '%s'" % (x, y)
    return None


def bad_inputs(opt):
    """(name, status, argv, phrase) of each line of tests/bad_input.txt"""
    out = []
    path = os.path.join(ROOT, 'tests', 'bad_input.txt')
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        status, cmd, phrase = [x.strip() for x in line.split('|', 2)]
        argv = []
        for w in cmd.split():
            if w == 'mpiexec':
                argv += opt.mpiexec.split()
            elif w == 'V':
                argv += ['-options_file', 'share/vpatch-mg.options']
            elif re.match(r'^(tutorials|bench|tests)/\w+$', w):
                argv.append(os.path.join(ROOT, opt.build, w))
            else:
                argv.append(w)
        out.append(('bad_input_%d' % n, int(status), argv, phrase))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--mpiexec', default='mpiexec')
    ap.add_argument('--petsc-dir', default='')
    ap.add_argument('--petsc-arch', default='')
    ap.add_argument('--gpu', action='store_true', help='also run tests that require cuda')
    ap.add_argument('--gpu-only', action='store_true', help='run only the tests that require cuda (implies --gpu)')
    ap.add_argument('--slow', action='store_true', help='also run tests marked slow')
    ap.add_argument('--update', action='store_true', help='write the expected outputs instead of comparing')
    ap.add_argument('filter', nargs='*', help='run only tests whose name contains one of these')
    opt = ap.parse_args()
    opt.gpu = opt.gpu or opt.gpu_only

    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_rmaps_base_oversubscribe='1',
               OMPI_MCA_btl_vader_single_copy_mechanism='none')
    if opt.gpu:
        env['PETSC_OPTIONS'] = (env.get('PETSC_OPTIONS', '') + ' -use_gpu_aware_mpi 0').strip()
    libdir = os.path.join(ROOT, 'lib', opt.petsc_arch or 'prefix')  # the makefile's LIBDIR
    passed = failed = skipped = 0
    failures = []

    def report(name, dt, why, cmd, out, tail):
        """one test's line; on failure the command and the last `tail` lines of its output"""
        nonlocal passed, failed
        if why:
            failed += 1
            failures.append(name)
            print('not ok  %-40s %6.1f s  %s' % (name, dt, why), flush=True)
            print('        command: ' + ' '.join(cmd))
            print('        ' + '\n        '.join(out.strip().splitlines()[-tail:]), flush=True)
        else:
            passed += 1
            print('ok      %-40s %6.1f s' % (name, dt), flush=True)
    env['PYTHONDONTWRITEBYTECODE'] = '1'  # no __pycache__ in the checkout
    if opt.petsc_dir:  # the Python tutorials take this PETSc, as the C ones do
        env.update(PETSC_DIR=opt.petsc_dir, PETSC_ARCH=opt.petsc_arch)
    sources = sorted(glob.glob(os.path.join(ROOT, 'tutorials', 'ex*.c'))) + sorted(glob.glob(os.path.join(ROOT, 'tests', 'test_*.c')))
    sources += sorted(glob.glob(os.path.join(ROOT, 'tutorials', 'ex*.py')))
    for src in sources:
        rel = os.path.relpath(src, ROOT)
        py = rel.endswith('.py')
        exe = os.path.join(ROOT, rel) if py else os.path.join(ROOT, opt.build, rel[:-2])
        base = os.path.basename(rel)[:-3] + '_py' if py else os.path.basename(rel)[:-2]
        for t in parse_tests(src):
            name = base + ('_' + t['suffix'] if t['suffix'] else '')
            if opt.filter and not any(f in name for f in opt.filter):
                continue
            if opt.gpu_only and 'cuda' not in t['requires']:
                continue
            if 'cuda' in t['requires'] and not opt.gpu:
                skipped += 1
                print('skip    %-40s (requires cuda: run make check-gpu on a GPU machine)' % name, flush=True)
                continue
            if 'slow' in t['requires'] and not opt.slow:
                skipped += 1
                print('skip    %-40s (slow: run make check-slow)' % name, flush=True)
                continue
            args = t['args'].replace('${LIBDIR}', libdir).split()
            cmd = ([sys.executable] if py else []) + [exe] + args + ['-malloc_debug', '-malloc_dump']
            if t['nsize'] != '1' or 'cuda' in t['requires']:
                cmd = opt.mpiexec.split() + ['-n', t['nsize']] + cmd
            t0 = time.time()
            if not os.path.exists(exe):
                failed += 1
                failures.append(name)
                print('not ok  %-40s executable %s is missing (build it with make all)' % (name, os.path.relpath(exe, ROOT)), flush=True)
                continue
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=float(t['timeout']), cwd=ROOT)
                out, rc = p.stdout.decode(errors='replace'), p.returncode
            except subprocess.TimeoutExpired:
                out, rc = 'timeout after %s s' % t['timeout'], -1
            dt = time.time() - t0
            why = None
            if t['expect_error']:
                if rc == 0:
                    why = 'expected an error containing "%s", but the program succeeded' % t['expect_error']
                elif t['expect_error'] not in out:
                    why = 'expected an error containing "%s"' % t['expect_error']
            elif rc != 0:
                why = 'exit status %d' % rc
            elif re.search(r'Total space allocated|unfreed|\[\s*\d+\]\s*\d+ bytes', out):
                why = 'memory leak reported by -malloc_dump'
            elif t['output_file'] != 'none':
                ref = os.path.join(ROOT, 'tests', 'output', (t['output_file'] or name) + '.out')
                if opt.update and not t['output_file']:
                    open(ref, 'w').write(out)
                elif not os.path.exists(ref):
                    why = 'no expected output %s' % os.path.relpath(ref, ROOT)
                else:
                    why = compare(out, open(ref).read(), float(t['rtol']), float(t['atol']))
            report(name, dt, why, cmd, out, 25)
    # documentation that a script keeps current: the data-path figure of docs/design.md (docs/datapath.py), the tables
    # of bench/RESULTS.md (bench/report.py, from bench/data)
    checks = [('docs_' + os.path.basename(p)[:-3], [p, '--check']) for p in sorted(glob.glob(os.path.join(ROOT, 'docs', '*.py')))]
    checks.append(('bench_results', [os.path.join(ROOT, 'bench', 'report.py'), '--results', '--check']))
    for name, argv in checks:
        if opt.gpu_only or (opt.filter and not any(f in name for f in opt.filter)):
            continue
        t0 = time.time()
        cmd = [sys.executable] + argv
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        out = p.stdout.decode(errors='replace')
        report(name, time.time() - t0, 'exit status %d' % p.returncode if p.returncode else None, cmd, out, 5)
    for name, status, cmd, phrase in bad_inputs(opt):
        if opt.gpu_only or (opt.filter and not any(f in name for f in opt.filter)):
            continue
        t0 = time.time()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=300, cwd=ROOT)
            out, rc = p.stdout.decode(errors='replace'), p.returncode
        except subprocess.TimeoutExpired:
            out, rc = 'timeout after 300 s', -1
        dt = time.time() - t0
        why = None
        if rc != status:
            why = 'exit status %d, expected %d' % (rc, status)
        elif phrase not in out:
            why = 'the output does not contain "%s"' % phrase
        report(name, dt, why, cmd, out, 12)
    if failures:
        print('failed: ' + ' '.join(failures))
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
